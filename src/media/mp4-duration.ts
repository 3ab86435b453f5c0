// MP4 / M4A / MOV (ISO BMFF): moov/mvhd duration ÷ timescale, or the audio track's mdhd when mvhd says 0.
// Boxes are walked by their headers alone, so a moov after a 1 GB mdat costs a few small reads.
// A fragmented MP4 (Safari's MediaRecorder: moov with mvex and durations of 0, then moof+mdat pairs) states its
// length in mvex/mehd when the muxer wrote one; otherwise it is the sum of the sound track's sample durations
// in each moof's truns, or, when the file has too many fragments to walk, the last moof's decode time.
import { MAX_READ, fourcc, type ByteSource, type Duration } from './byte-source.js';

const MAX_BOXES = 1024; // per parent; real files have a handful at each level
// The top-level walk over fragments: a read per box header plus one per moof (a few hundred bytes each), so a
// recording of ~700 fragments is walked whole; these caps leave PROBE_READS and PROBE_BUDGET room for the tail.
const WALK_READS = 1536;
const WALK_BYTES = 320 * 1024;
const TAIL_BYTES = 2 * MAX_READ; // where the last moof is looked for when the walk cannot reach the end
const MAX_CANDIDATES = 64; // 'moof' strings in the tail parsed as boxes; a tail stuffed with them must not cost much
interface Box { type: string; body: number; end: number }

/** The child boxes of [start, end), each clipped to its parent so a size past the end cannot lead the walk out. */
async function* boxes(src: ByteSource, start: number, end: number): AsyncGenerator<Box> {
  let at = start;
  for (let n = 0; n < MAX_BOXES && at + 8 <= end; n++) {
    const h = await src.read(at, 16);
    if (h.length < 8) return;
    let size = h.readUInt32BE(0), body = at + 8;
    if (size === 1) { // a 64-bit "largesize" follows the type
      if (h.length < 16) return;
      [size, body] = [Number(h.readBigUInt64BE(8)), at + 16];
    } else if (size === 0) size = end - at; // 0: the box runs to the end of its parent (the file, at top level)
    if (size < body - at) return; // smaller than its own header: corrupt, and a walk that would not advance
    yield { type: fourcc(h, 4), body, end: Math.min(at + size, end) };
    at += size;
  }
}

/** The same walk over boxes already in memory (a moof read whole), clipped the same way. */
function* boxesIn(buf: Buffer, start: number, end: number): Generator<Box> {
  let at = start;
  for (let n = 0; n < MAX_BOXES && at + 8 <= end; n++) {
    let size = buf.readUInt32BE(at), body = at + 8;
    if (size === 1) {
      if (at + 16 > end) return;
      [size, body] = [Number(buf.readBigUInt64BE(at + 8)), at + 16];
    } else if (size === 0) size = end - at;
    if (size < body - at) return;
    yield { type: fourcc(buf, at + 4), body, end: Math.min(at + size, end) };
    at += size;
  }
}

async function child(src: ByteSource, parent: { body: number; end: number }, type: string): Promise<Box | undefined> {
  for await (const b of boxes(src, parent.body, parent.end)) if (b.type === type) return b;
  return undefined;
}

/** Timescale and duration of an mvhd or mdhd (same layout up to there); duration 0 when unknown or malformed. */
async function header(src: ByteSource, box: Box | undefined): Promise<{ scale: number; duration: number }> {
  const none = { scale: 0, duration: 0 };
  if (!box) return none;
  const b = await src.read(box.body, 32);
  const v1 = b[0] === 1; // version 1 widens the times and the duration to 64 bits
  if (b.length < (v1 ? 32 : 20)) return none;
  const scale = b.readUInt32BE(v1 ? 20 : 12);
  const duration = v1 ? b.readBigUInt64BE(24) : BigInt(b.readUInt32BE(16));
  const unknown = duration === (v1 ? 0xffffffffffffffffn : 0xffffffffn); // all ones: "not known"
  return { scale, duration: unknown ? 0 : Number(duration) };
}
const seconds = (h: { scale: number; duration: number }) => (h.scale === 0 ? 0 : h.duration / h.scale);

/** A time or duration that version 1 widens to 64 bits (mehd's, tfdt's): a uint32 at `at32`, or a uint64 at `at64`. */
function versioned(b: Buffer, at32: number, at64: number): number | undefined {
  const v1 = b[0] === 1;
  if (b.length < (v1 ? at64 + 8 : at32 + 4)) return undefined;
  return v1 ? Number(b.readBigUInt64BE(at64)) : b.readUInt32BE(at32);
}

/** The sound track of a fragmented file: its id, its mdhd timescale, and trex's default sample duration and size. */
interface Track { id: number; scale: number; duration: number; size: number }
/** One moof's samples of that track: its tfdt (decode time of its first sample) if it has one, and their total duration. */
interface Fragment { tfdt?: number; ticks: number }

/**
 * The duration of one trun's samples, in media ticks: per-sample durations when flagged, else the default ×
 * the count. Undefined when the count cannot be right: more entries than the box holds, or more sample bytes
 * than the whole file (so a sample_count of 2^32−1 with no entries is a lie, not 2^32 samples of audio).
 */
function trunTicks(d: Buffer, duration: number, size: number, fileSize: number): number | undefined {
  if (d.length < 8) return undefined;
  const flags = d.readUIntBE(1, 3), count = d.readUInt32BE(4);
  let at = 8 + (flags & 0x1 ? 4 : 0) + (flags & 0x4 ? 4 : 0); // data_offset, first_sample_flags
  const entry = 4 * (((flags >> 8) & 1) + ((flags >> 9) & 1) + ((flags >> 10) & 1) + ((flags >> 11) & 1));
  if (at > d.length || count * entry > d.length - at) return undefined;
  if (!(flags & 0x100) && duration === 0) return undefined; // no duration anywhere: cannot tell
  let ticks = 0, bytes = 0;
  if (entry === 0) [ticks, bytes] = [count * duration, count * Math.max(size, 1)];
  for (let k = 0; entry > 0 && k < count; k++, at += entry) { // count ≤ the box's bytes ÷ 4: bounded by the read
    ticks += flags & 0x100 ? d.readUInt32BE(at) : duration;
    bytes += flags & 0x200 ? d.readUInt32BE(at + (flags & 0x100 ? 4 : 0)) : Math.max(size, 1);
  }
  return bytes <= fileSize ? ticks : undefined;
}

/**
 * The track's samples in a moof held whole in `moof` (its box header at 0): null when the moof has none of that
 * track, undefined when its traf does not parse. tfhd's defaults override trex's, as in the spec.
 */
function moofFragment(moof: Buffer, t: Track, fileSize: number): Fragment | null | undefined {
  let frag: Fragment | null = null;
  for (const traf of boxesIn(moof, 8, moof.length)) {
    if (traf.type !== 'traf') continue;
    let mine = false, duration = t.duration, size = t.size, tfdt: number | undefined, ticks = 0;
    for (const b of boxesIn(moof, traf.body, traf.end)) {
      const d = moof.subarray(b.body, b.end);
      if (b.type === 'tfhd') { // comes first in a traf: which track, and its defaults
        if (d.length < 8) return undefined;
        const flags = d.readUIntBE(1, 3);
        mine = d.readUInt32BE(4) === t.id;
        let at = 8 + (flags & 0x1 ? 8 : 0) + (flags & 0x2 ? 4 : 0); // base_data_offset, sample_description_index
        if (flags & 0x8) { if (at + 4 > d.length) return undefined; duration = d.readUInt32BE(at); at += 4; }
        if (flags & 0x10) { if (at + 4 > d.length) return undefined; size = d.readUInt32BE(at); }
      } else if (mine && b.type === 'tfdt') {
        tfdt = versioned(d, 4, 4);
        if (tfdt === undefined) return undefined;
      } else if (mine && b.type === 'trun') {
        const r = trunTicks(d, duration, size, fileSize);
        if (r === undefined) return undefined;
        ticks += r;
      }
    }
    if (mine && frag) frag.ticks += ticks; // a second traf of the same track continues the first
    else if (mine) frag = { tfdt, ticks };
  }
  return frag;
}

/** The last moof in the file's tail that parses (mfhd first, an mdat or the end after it) with a tfdt of at least `minTfdt`. */
async function lastMoof(src: ByteSource, from: number, t: Track, minTfdt: number): Promise<Fragment | undefined> {
  const tailAt = Math.max(from, src.size - TAIL_BYTES), parts: Buffer[] = [];
  for (let at = tailAt; at < src.size; at += MAX_READ) {
    const b = await src.read(at, MAX_READ);
    if (b.length !== Math.min(MAX_READ, src.size - at)) return undefined; // the probe's read budget ran out
    parts.push(b);
  }
  const tail = Buffer.concat(parts);
  let i = tail.lastIndexOf('moof');
  for (let n = 0; i >= 4 && n < MAX_CANDIDATES; n++, i = tail.lastIndexOf('moof', i - 1)) {
    const s = i - 4, size = tail.readUInt32BE(s), next = s + size;
    if (size < 16 || next > tail.length || fourcc(tail, i + 8) !== 'mfhd') continue;
    if (next + 8 <= tail.length && fourcc(tail, next + 4) !== 'mdat') continue; // a moof's samples follow it
    const f = moofFragment(tail.subarray(s, next), t, src.size);
    if (f && f.tfdt !== undefined && f.tfdt >= minTfdt) return f; // decode times do not go back
  }
  return undefined;
}

/** The sound track's length in a fragmented file, from the moofs after the moov (which ends at `from`). */
async function fragmentsDuration(src: ByteSource, from: number, t: Track): Promise<Duration | undefined> {
  let at = from, reads = 0, bytes = 0, complete = false, truncated = false;
  let sum = 0, count = 0, firstAt = 0, start = 0, lastStart = 0, end = 0; // decode times, in ticks
  while (reads < WALK_READS && bytes < WALK_BYTES) {
    if (at + 8 > src.size) { complete = true; break; }
    const h = await src.read(at, 16);
    reads++;
    if (h.length < 8) break; // the probe's read budget ran out
    let size = h.readUInt32BE(0), body = 8;
    if (size === 1 && h.length === 16) [size, body] = [Number(h.readBigUInt64BE(8)), 16];
    else if (size === 0) size = src.size - at;
    if (size < body) break; // corrupt: the walk cannot go on, the tail may still say where the audio ends
    const type = fourcc(h, 4);
    if (at + size > src.size) truncated = true; // an upload cut short: this box is the last and is not whole
    if (type === 'moof' && !truncated) { // a cut-off moof's samples are not in the file
      const moof = await src.read(at, Math.min(size, MAX_READ));
      [reads, bytes] = [reads + 1, bytes + moof.length];
      const f = moof.length === size ? moofFragment(moof, t, src.size) : undefined;
      if (f === undefined) {
        if (moof.length === size) return undefined; // a fragment that does not parse: refuse rather than guess
        break; // a moof bigger than one read (or the budget ran out): leave the rest to the tail
      }
      if (f) {
        const fStart = f.tfdt ?? end; // no tfdt: it follows the previous fragment
        if (count++ === 0) [firstAt, start] = [at, fStart];
        [sum, lastStart, end] = [sum + f.ticks, fStart, fStart + f.ticks];
      }
    }
    if (truncated) { complete = true; break; }
    at += size;
  }
  if (count === 0) return undefined;
  if (complete) return { seconds: sum / t.scale, exact: !truncated }; // every fragment's samples, counted
  // Too many fragments to walk: the last moof's decode time and duration, from the tail, measured from the first's.
  const last = await lastMoof(src, at, t, lastStart);
  if (last) return { seconds: (last.tfdt! + last.ticks - start) / t.scale, exact: false };
  // No usable last moof (a fragment bigger than the tail, no tfdt): what was walked, scaled to the whole file.
  return at > firstAt ? { seconds: ((sum / t.scale) * (src.size - firstAt)) / (at - firstAt), exact: false } : undefined;
}

export async function mp4Duration(src: ByteSource): Promise<Duration | undefined> {
  const moov = await child(src, { body: 0, end: src.size }, 'moov');
  if (!moov) return undefined;
  const mvhd = await header(src, await child(src, moov, 'mvhd'));
  if (seconds(mvhd) > 0) return { seconds: seconds(mvhd), exact: true };
  // No movie duration (some muxers leave it 0): use the first sound track's own media header.
  let sound: { id: number; scale: number } | undefined;
  for await (const trak of boxes(src, moov.body, moov.end)) {
    if (trak.type !== 'trak') continue;
    const mdia = await child(src, trak, 'mdia');
    const hdlr = mdia && (await child(src, mdia, 'hdlr'));
    if (!mdia || !hdlr || fourcc(await src.read(hdlr.body + 8, 4), 0) !== 'soun') continue;
    const mdhd = await header(src, await child(src, mdia, 'mdhd'));
    if (seconds(mdhd) > 0) return { seconds: seconds(mdhd), exact: true };
    const tkhd = await child(src, trak, 'tkhd');
    const k = tkhd ? await src.read(tkhd.body, 24) : Buffer.alloc(0);
    const id = k.length >= (k[0] === 1 ? 24 : 16) ? k.readUInt32BE(k[0] === 1 ? 20 : 12) : 0; // after the two times
    if (!sound && id && mdhd.scale > 0) sound = { id, scale: mdhd.scale };
  }
  // Fragmented (mvex): the samples are in moofs after the moov, and the moov says 0.
  const mvex = await child(src, moov, 'mvex');
  if (!mvex) return undefined;
  const mehd = await child(src, mvex, 'mehd'); // fragment_duration: the whole movie's, in mvhd's timescale
  const total = mehd && versioned(await src.read(mehd.body, 12), 4, 4);
  if (total && total !== 0xffffffff && total !== 2 ** 64 && mvhd.scale > 0) return { seconds: total / mvhd.scale, exact: true }; // all ones: unknown
  if (!sound) return undefined;
  const track: Track = { ...sound, duration: 0, size: 0 };
  for await (const trex of boxes(src, mvex.body, mvex.end)) {
    const b = trex.type === 'trex' ? await src.read(trex.body, 24) : Buffer.alloc(0);
    if (b.length === 24 && b.readUInt32BE(4) === sound.id) [track.duration, track.size] = [b.readUInt32BE(12), b.readUInt32BE(16)];
  }
  return fragmentsDuration(src, moov.end, track);
}
