// WebM / Matroska: Segment → Info → Duration (a float, in TimecodeScale units of nanoseconds).
// Muxers write Info before the first Cluster and list it in the SeekHead; both ways to it are tried.
// A live recording (a browser's MediaRecorder) has no Duration: then the end of the last block of the last
// Cluster, found in the file's tail, is the estimate (exact: false).
import { MAX_READ, type ByteSource, type Duration } from './byte-source.js';

const ID = { ebml: 0x1a45dfa3, segment: 0x18538067, seekHead: 0x114d9b74, seek: 0x4dbb, seekId: 0x53ab,
  seekPosition: 0x53ac, info: 0x1549a966, timecodeScale: 0x2ad7b1, duration: 0x4489, cluster: 0x1f43b675,
  tracks: 0x1654ae6b, trackEntry: 0xae, trackNumber: 0xd7, codecId: 0x86, defaultDuration: 0x23e383,
  timecode: 0xe7, simpleBlock: 0xa3, blockGroup: 0xa0, block: 0xa1, blockDuration: 0x9b, discardPadding: 0x75a2 };
const MAX_CHILDREN = 64; // Segment children looked at before giving up; Info comes within the first few
const MAX_ELEMENT = 16 * 1024; // Info and SeekHead are a few hundred bytes; a bigger one is read only this far
// The tail searched for the last Cluster. A Cluster spans at most 32.767 s (block timecodes are 16-bit, in
// ms at the usual scale), which is ~400 KB of Opus at 96 kbit/s; the head reads stay well under the rest of
// PROBE_BUDGET. A last Cluster that starts before this tail gives undefined.
const TAIL_BYTES = 384 * 1024;
const MAX_STARTS = 32; // Cluster IDs in the tail tried as the start of a walk; a tail stuffed with them must not cost much
const MAX_STEPS = 100_000; // elements parsed over all those walks: a real tail of 20 ms Opus blocks is a few thousand
// What a Cluster may hold (Timecode, SimpleBlock, BlockGroup, EncryptedBlock, Position, PrevSize, SilentTracks,
// CRC-32, Void), and what may sit between or after Clusters at the Segment's level.
const CLUSTER_CHILDREN = new Set([0xe7, 0xa3, 0xa0, 0xaf, 0xa7, 0xab, 0x5854, 0xbf, 0xec]);
const SEGMENT_CHILDREN = new Set([ID.seekHead, ID.info, ID.tracks, 0x1c53bb6b, 0x1254c367, 0x1043a770, 0x1941a469, 0xbf, 0xec]);
const CLUSTER_ID = Buffer.from([0x1f, 0x43, 0xb6, 0x75]);

interface Element { id: number; dataAt: number; size: number; unknown: boolean }

/** EBML element header at buf[i]: an ID (1-4 bytes, marker kept) and a size (1-8 bytes, marker dropped; all ones = unknown). */
function element(buf: Buffer, i: number): Element | undefined {
  const idLen = i < buf.length ? Math.clz32(buf[i]) - 23 : 9; // leading zero bits give the length
  if (idLen > 4 || i + idLen >= buf.length) return undefined;
  const s = i + idLen, sizeLen = Math.clz32(buf[s]) - 23;
  if (sizeLen > 8 || s + sizeLen > buf.length) return undefined;
  let size = buf[s] & (0xff >> sizeLen), unknown = size === 0xff >> sizeLen;
  for (let k = 1; k < sizeLen; k++) [size, unknown] = [size * 256 + buf[s + k], unknown && buf[s + k] === 0xff];
  return { id: buf.readUIntBE(i, idLen), dataAt: s + sizeLen, size, unknown };
}

/** The children of a buffered element's payload (clipped to the buffer, bounded by its length). */
function* children(buf: Buffer): Generator<Element & { data: Buffer }> {
  let e = element(buf, 0);
  while (e && !e.unknown) { // each step moves past a header of at least 2 bytes, so this ends
    const next = e.dataAt + e.size;
    yield { ...e, data: buf.subarray(e.dataAt, Math.min(next, buf.length)) };
    e = element(buf, next);
  }
}

const uint = (b: Buffer) => b.reduce((v, x) => v * 256 + x, 0);

/** Info's TimecodeScale, and its Duration in seconds when it has a usable one. */
async function readInfo(src: ByteSource, at: number): Promise<{ scale: number; seconds?: number } | undefined> {
  const e = element(await src.read(at, 12), 0);
  if (!e || e.id !== ID.info) return undefined;
  const body = await src.read(at + e.dataAt, e.unknown ? MAX_ELEMENT : Math.min(e.size, MAX_ELEMENT));
  let scale = 1_000_000, duration: number | undefined; // the default scale makes Duration milliseconds
  for (const c of children(body)) {
    if (c.id === ID.timecodeScale && c.data.length >= 1 && c.data.length <= 8) scale = uint(c.data);
    if (c.id === ID.duration && c.data.length === 4) duration = c.data.readFloatBE(0);
    if (c.id === ID.duration && c.data.length === 8) duration = c.data.readDoubleBE(0);
  }
  if (scale === 0) return undefined;
  const ok = duration !== undefined && Number.isFinite(duration) && duration >= 0;
  return { scale, seconds: ok ? (duration! * scale) / 1e9 : undefined };
}

/** Where the SeekHead says Info and Tracks are, relative to the start of the Segment's data. */
function seekPositions(seekHead: Buffer): Map<number, number> {
  const found = new Map<number, number>();
  for (const seek of children(seekHead)) {
    if (seek.id !== ID.seek) continue;
    let id: number | undefined, position: number | undefined;
    for (const c of children(seek.data)) {
      if (c.id === ID.seekId && c.data.length <= 4) id = uint(c.data);
      if (c.id === ID.seekPosition && c.data.length <= 8) position = uint(c.data);
    }
    if ((id === ID.info || id === ID.tracks) && position !== undefined && !found.has(id)) found.set(id, position);
  }
  return found;
}

/** Per track number: DefaultDuration (ns, 0 = none) and whether it is Opus, whose packets state their length. */
interface Track { defaultNs: number; opus: boolean }

function readTracks(body: Buffer): Map<number, Track> {
  const tracks = new Map<number, Track>();
  for (const entry of children(body)) {
    if (entry.id !== ID.trackEntry) continue;
    let number = 0, defaultNs = 0, opus = false;
    for (const c of children(entry.data)) {
      if (c.id === ID.trackNumber && c.data.length <= 8) number = uint(c.data);
      if (c.id === ID.defaultDuration && c.data.length <= 8) defaultNs = uint(c.data);
      if (c.id === ID.codecId) opus = c.data.toString('latin1') === 'A_OPUS';
    }
    if (number > 0 && tracks.size < 64) tracks.set(number, { defaultNs, opus });
  }
  return tracks;
}

/** An Opus packet's length (RFC 6716 §3.1: the TOC byte's frame size × the frame count), 0 if it makes no sense. */
function opusPacketNs(p: Buffer): number {
  if (p.length < 1) return 0;
  const config = p[0] >> 3, code = p[0] & 3;
  const ms = config < 12 ? [10, 20, 40, 60][config & 3] : config < 16 ? [10, 20][config & 1] : [2.5, 5, 10, 20][config & 3];
  const frames = code === 0 ? 1 : code < 3 ? 2 : p.length > 1 ? p[1] & 0x3f : 0;
  return ms * frames <= 120 ? ms * frames * 1e6 : 0; // a packet holds at most 120 ms
}

/** State shared by the walks over one tail: the scale, the tracks, the earliest timecode a Cluster may have, steps left. */
interface Walk { scale: number; tracks: Map<number, Track>; minTc: number; steps: number }

/**
 * When a Block (a SimpleBlock's payload, or a BlockGroup's Block) ends, in ns: the Cluster's timecode plus the
 * block's signed 16-bit relative timecode, plus the block's own length when it can be told (BlockDuration, the
 * track's DefaultDuration, or the Opus TOC byte; less any DiscardPadding). Undefined if it is not a block.
 */
function blockEnd(b: Buffer, clusterTc: number, w: Walk, group?: { ticks?: number; discardNs: number }): number | undefined {
  const len = b.length ? Math.clz32(b[0]) - 23 : 9; // the track number, an EBML variable-length integer
  if (len > 8 || b.length < len + 3) return undefined;
  let number = b[0] & (0xff >> len);
  for (let k = 1; k < len; k++) number = number * 256 + b[k];
  const track = w.tracks.get(number);
  if (number === 0 || (w.tracks.size > 0 && !track)) return undefined; // a block of a track the file never declared
  const flags = b[len + 2], data = b.subarray(len + 3);
  const frames = flags & 0x06 ? (data.length ? data[0] + 1 : 0) : 1; // laced: the first byte is the frame count − 1
  if (frames === 0) return undefined;
  let ns = 0;
  if (group?.ticks !== undefined) ns = group.ticks * w.scale;
  else if (track?.defaultNs) ns = track.defaultNs * frames;
  else if (track?.opus && frames === 1) ns = opusPacketNs(data);
  return (clusterTc + b.readInt16BE(len)) * w.scale + Math.max(0, ns - (group?.discardNs ?? 0));
}

function groupEnd(group: Buffer, clusterTc: number, w: Walk): number | undefined {
  let block: Buffer | undefined, ticks: number | undefined, discardNs = 0;
  for (const c of children(group)) {
    if (--w.steps < 0) return undefined;
    if (c.id === ID.block) block = c.data;
    if (c.id === ID.blockDuration && c.data.length <= 8) ticks = uint(c.data);
    if (c.id === ID.discardPadding && c.data.length >= 1 && c.data.length <= 6) discardNs = c.data.readIntBE(0, c.data.length);
  }
  return block && blockEnd(block, clusterTc, w, { ticks, discardNs });
}

/**
 * The Cluster at buf[at], checked child by child: a Timecode before any block, only Cluster children, every
 * block of a declared track, none past the Cluster's size. Returns its timecode, the latest block end (ns) and
 * where the next element starts; undefined when the bytes are not a consistent Cluster. `buf` ends where the
 * Segment (the file) ends, so an element cut off there is a truncated upload: it ends the walk and is not counted.
 */
function clusterAt(buf: Buffer, at: number, w: Walk): { tc: number; endNs: number; next: number } | undefined {
  const e = element(buf, at);
  if (!e || e.id !== ID.cluster || (!e.unknown && e.size < 3)) return undefined; // a Timecode takes 3 bytes at least
  const end = e.unknown ? buf.length : e.dataAt + e.size;
  let i = e.dataAt, tc: number | undefined, endNs = 0;
  while (i < Math.min(end, buf.length)) {
    if (--w.steps < 0) return undefined;
    const c = element(buf, i);
    if (!c) {
      if (buf.length - i >= 12) return undefined; // not an element header
      i = buf.length; // a header cut off by the end of the file
      break;
    }
    if (!CLUSTER_CHILDREN.has(c.id)) {
      if (e.unknown && tc !== undefined) break; // a Segment-level element ends a Cluster of unknown size
      return undefined;
    }
    const cEnd = c.dataAt + c.size;
    if (c.unknown || (!e.unknown && cEnd > end)) return undefined; // a child past its Cluster's end
    if (cEnd > buf.length) { i = buf.length; break; } // cut off by the end of the file
    const data = buf.subarray(c.dataAt, cEnd);
    if (c.id === ID.timecode) {
      if (tc !== undefined || data.length < 1 || data.length > 8) return undefined;
      tc = uint(data);
      endNs = Math.max(endNs, tc * w.scale);
    } else if (c.id === ID.simpleBlock || c.id === ID.blockGroup) {
      if (tc === undefined) return undefined; // the Timecode comes before the blocks
      const blockNs = c.id === ID.simpleBlock ? blockEnd(data, tc, w) : groupEnd(data, tc, w);
      if (blockNs === undefined) return undefined;
      endNs = Math.max(endNs, blockNs);
    }
    i = cEnd;
  }
  if (tc === undefined) return undefined;
  return { tc, endNs, next: e.unknown ? i : end };
}

/**
 * Walks from the Cluster at buf[at] to the end of buf (the end of the file), Cluster by Cluster, skipping
 * Segment-level elements between them; the latest block end (ns), or undefined unless every element on the
 * way parses and Cluster timecodes never go back. Once on a real Cluster, the walk steps over block payloads
 * by their sizes, so a Cluster ID that happens to sit inside audio bytes is never looked at.
 */
function walkClusters(buf: Buffer, at: number, w: Walk): number | undefined {
  let lastTc = w.minTc, endNs: number | undefined;
  for (let i = at; i < buf.length;) {
    if (--w.steps < 0) return undefined;
    const e = element(buf, i);
    if (!e) return buf.length - i < 12 && endNs !== undefined ? endNs : undefined; // a header cut off at the end
    if (e.id === ID.cluster) {
      const c = clusterAt(buf, i, w);
      if (!c || c.tc < lastTc) return undefined;
      [lastTc, endNs, i] = [c.tc, Math.max(endNs ?? 0, c.endNs), c.next];
    } else if (SEGMENT_CHILDREN.has(e.id) && !e.unknown && endNs !== undefined) {
      i = e.dataAt + e.size; // Cues, Tags, Void...: skipped (and a cut-off one ends the walk)
    } else {
      return undefined;
    }
  }
  return endNs;
}

/** The end time of the last Cluster's blocks, from the Segment's tail, read 64 KB at a time backwards until a walk succeeds. */
async function lastClusterEnd(src: ByteSource, from: number, segEnd: number, w: Walk): Promise<Duration | undefined> {
  const start = Math.max(from, segEnd - TAIL_BYTES);
  let tail = Buffer.alloc(0), tailAt = segEnd, starts = 0;
  while (tailAt > start && starts < MAX_STARTS && w.steps > 0) {
    const at = Math.max(start, tailAt - MAX_READ);
    const b = await src.read(at, tailAt - at);
    if (b.length !== tailAt - at) return undefined; // the probe's read budget ran out
    [tail, tailAt] = [Buffer.concat([b, tail]), at];
    // Walks start at Cluster IDs in the new bytes (one may straddle into the old), earliest first: the earliest
    // real Cluster walks over every later one, and a fake inside a block's payload fails to parse or is stepped over.
    for (let i = tail.indexOf(CLUSTER_ID); i >= 0 && i < b.length && starts < MAX_STARTS; i = tail.indexOf(CLUSTER_ID, i + 1)) {
      starts++;
      const endNs = walkClusters(tail, i, w);
      if (endNs !== undefined) return { seconds: endNs / 1e9, exact: false };
    }
  }
  return undefined;
}

export async function webmDuration(src: ByteSource): Promise<Duration | undefined> {
  const ebml = element(await src.read(0, 12), 0);
  if (!ebml || ebml.id !== ID.ebml || ebml.unknown) return undefined;
  const seg = element(await src.read(ebml.dataAt + ebml.size, 12), 0);
  if (!seg || seg.id !== ID.segment) return undefined;
  const segAt = ebml.dataAt + ebml.size + seg.dataAt;
  // A live recording (e.g. a browser's MediaRecorder) leaves the Segment size unknown: it runs to the end.
  const segEnd = seg.unknown ? src.size : Math.min(segAt + seg.size, src.size);
  let info: { scale: number; seconds?: number } | undefined, tracks: Map<number, Track> | undefined;
  let seeks = new Map<number, number>(), firstCluster: { at: number; tc: number } | undefined;
  for (let at = segAt, n = 0; at < segEnd && n < MAX_CHILDREN; n++) {
    const e = element(await src.read(at, 12), 0);
    if (!e) break;
    if (e.id === ID.cluster) { // Info precedes the media; past here only the SeekHead can help
      const c = element(await src.read(at + e.dataAt, 12), 0); // its Timecode, the first child
      const tc = c?.id === ID.timecode && c.size >= 1 && c.size <= 8 ? uint(await src.read(at + e.dataAt + c.dataAt, c.size)) : 0;
      firstCluster = { at, tc };
      break;
    }
    if (e.id === ID.info && !info) {
      info = await readInfo(src, at);
      if (info?.seconds !== undefined) return { seconds: info.seconds, exact: true };
    }
    if (e.id === ID.tracks && !e.unknown && !tracks) tracks = readTracks(await src.read(at + e.dataAt, Math.min(e.size, MAX_ELEMENT)));
    if (e.id === ID.seekHead && !e.unknown && seeks.size === 0) seeks = seekPositions(await src.read(at + e.dataAt, Math.min(e.size, MAX_ELEMENT)));
    if (e.unknown) break; // a child of unknown size cannot be skipped
    at += e.dataAt + e.size;
  }
  const infoAt = seeks.get(ID.info), tracksAt = seeks.get(ID.tracks);
  if (!info && infoAt !== undefined && segAt + infoAt < segEnd) {
    info = await readInfo(src, segAt + infoAt);
    if (info?.seconds !== undefined) return { seconds: info.seconds, exact: true };
  }
  if (!info) return undefined; // not a Matroska file we can read a timescale from
  if (!tracks && tracksAt !== undefined && segAt + tracksAt < segEnd) {
    const e = element(await src.read(segAt + tracksAt, 12), 0);
    if (e?.id === ID.tracks && !e.unknown) tracks = readTracks(await src.read(segAt + tracksAt + e.dataAt, Math.min(e.size, MAX_ELEMENT)));
  }
  // No Duration (a live recording): the end of the last block of the last Cluster.
  const walk: Walk = { scale: info.scale, tracks: tracks ?? new Map(), minTc: firstCluster?.tc ?? 0, steps: MAX_STEPS };
  return lastClusterEnd(src, firstCluster?.at ?? segAt, segEnd, walk);
}
