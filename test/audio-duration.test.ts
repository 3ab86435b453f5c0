// Audio duration probe: real container bytes built here, checked for the seconds a transcription is billed
// on, and hostile inputs (truncated, lying sizes, random bytes) that must give undefined or a sane number fast.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audioDuration, probeAudio, type AudioProbe } from '../src/media/audio-duration.js';
import { fileSource, PROBE_BUDGET, PROBE_READS } from '../src/media/byte-source.js';

let dir: string;
let n = 0;
before(() => { dir = mkdtempSync(join(tmpdir(), 'switchyard-audio-')); });
after(() => rmSync(dir, { recursive: true, force: true }));

function save(bytes: Buffer): string {
  const path = join(dir, `f${n++}.bin`); // no extension: detection must go by the bytes
  writeFileSync(path, bytes);
  return path;
}
const probe = (bytes: Buffer) => audioDuration(save(bytes), bytes.length);

/** Probes through a counting source, so a test can see how much I/O a file cost. */
async function probeCounting(bytes: Buffer) {
  const fh = await open(save(bytes), 'r');
  try {
    const src = fileSource(fh, bytes.length);
    const result = await probeAudio(src);
    return { result, bytesRead: src.bytesRead, reads: src.reads };
  } finally {
    await fh.close();
  }
}

function assertSeconds(p: AudioProbe | undefined, format: AudioProbe['format'], seconds: number, exact: boolean, tolerance = 1e-9) {
  assert.ok(p, `expected a ${format} duration, got undefined`);
  assert.equal(p.format, format);
  assert.ok(Math.abs(p.seconds - seconds) <= tolerance * Math.max(1, seconds), `${p.seconds} s, expected ${seconds} s`);
  assert.equal(p.exact, exact);
}

const u16le = (v: number) => { const b = Buffer.alloc(2); b.writeUInt16LE(v); return b; };
const u32le = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
const u64le = (v: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
const u32be = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(v); return b; };
const u64be = (v: bigint) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(v); return b; };
const ascii = (s: string) => Buffer.from(s, 'latin1');

/** A deterministic byte stream (xorshift), so "random" failures reproduce. */
function noise(length: number, seed = 1): Buffer {
  const b = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; b[i] = x & 0xff; }
  return b;
}

// ---- WAV ----

function chunk(id: string, body: Buffer, size = body.length): Buffer {
  return Buffer.concat([ascii(id), u32le(size), body, body.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}
function fmtChunk(rate: number, channels: number, bits: number, tag = 1): Buffer {
  const align = (channels * bits) / 8;
  return chunk('fmt ', Buffer.concat([u16le(tag), u16le(channels), u32le(rate), u32le(rate * align), u16le(align), u16le(bits)]));
}
function wav(chunks: Buffer[], riffSize?: number, magic = 'RIFF'): Buffer {
  const body = Buffer.concat([ascii('WAVE'), ...chunks]);
  return Buffer.concat([ascii(magic), u32le(riffSize ?? body.length), body]);
}

test('WAV: 2.5 s of 24 kHz mono 16-bit, with a LIST chunk of odd size before the data', async () => {
  const samples = noise(2.5 * 24000 * 2, 7);
  const file = wav([fmtChunk(24000, 1, 16), chunk('LIST', ascii('INFOISFT\x05\x00\x00\x00Test\x00')), chunk('data', samples)]);
  assertSeconds(await probe(file), 'wav', 2.5, true);
});

test('WAV: stereo 24-bit at 48 kHz, data chunk followed by trailing chunks', async () => {
  const file = wav([fmtChunk(48000, 2, 24), chunk('data', Buffer.alloc(48000 * 6 * 3)), chunk('id3 ', Buffer.alloc(300))]);
  assertSeconds(await probe(file), 'wav', 3, true);
});

test('WAV: streamed, sizes 0xFFFFFFFF (and 0) use the bytes to the end of the file', async () => {
  const pcm = Buffer.alloc(16000 * 4); // 1 s of 16 kHz stereo 16-bit
  const streamed = wav([fmtChunk(16000, 2, 16), chunk('data', pcm, 0xffffffff)], 0xffffffff);
  assertSeconds(await probe(streamed), 'wav', 1, false);
  const zeroed = wav([fmtChunk(16000, 2, 16), chunk('data', pcm, 0)], 0);
  assertSeconds(await probe(zeroed), 'wav', 1, false);
});

test('WAV: RF64 takes the data size from ds64', async () => {
  const pcm = Buffer.alloc(8000 * 2 * 5); // 5 s of 8 kHz mono 16-bit
  const ds64 = chunk('ds64', Buffer.concat([u64le(0), u64le(pcm.length), u64le(8000 * 5), u32le(0)]));
  const file = wav([ds64, fmtChunk(8000, 1, 16), chunk('data', pcm, 0xffffffff)], 0xffffffff, 'RF64');
  assertSeconds(await probe(file), 'wav', 5, true);
});

test('WAV: a data size past the end of the file counts only the bytes present', async () => {
  const file = wav([fmtChunk(16000, 1, 16), chunk('data', Buffer.alloc(32000), 32000 * 600)]); // claims 10 min, has 1 s
  assertSeconds(await probe(file), 'wav', 1, false);
});

test('WAV: compressed format with a fact chunk uses its sample count', async () => {
  const fmt = chunk('fmt ', Buffer.concat([u16le(0x11), u16le(1), u32le(8000), u32le(4055), u16le(256), u16le(4), u16le(2), u16le(505)]));
  const file = wav([fmt, chunk('fact', u32le(8000 * 4)), chunk('data', Buffer.alloc(4055 * 4))]);
  assertSeconds(await probe(file), 'wav', 4, true);
});

test('WAV: a sample rate of 0, a missing fmt, or a chunk walk off the end give undefined', async () => {
  assert.equal(await probe(wav([fmtChunk(0, 1, 16), chunk('data', Buffer.alloc(100))])), undefined);
  assert.equal(await probe(wav([chunk('data', Buffer.alloc(100))])), undefined);
  assert.equal(await probe(wav([chunk('LIST', Buffer.alloc(10), 0xfffffff0), fmtChunk(8000, 1, 16)])), undefined);
});

// ---- MP3 ----

/** MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, stereo; padding set so the stream averages 417.96 bytes a frame. */
function mp3Frames(count: number, firstIndex = 0): Buffer[] {
  const frames: Buffer[] = [];
  const exact = (144 * 128000) / 44100;
  for (let i = firstIndex; i < firstIndex + count; i++) {
    const length = Math.floor((i + 1) * exact) - Math.floor(i * exact);
    const f = Buffer.alloc(length); // zero side info and main data: a silent frame
    f.set([0xff, 0xfb, 0x90 | (length === 418 ? 2 : 0), 0x00]);
    frames.push(f);
  }
  return frames;
}
/** An Info/Xing frame stating `frames` (and `bytes` when given), 36 bytes in: after stereo MPEG-1 side info. */
function xingFrame(tag: 'Xing' | 'Info', frames: number, bytes?: number): Buffer {
  const f = Buffer.alloc(417);
  f.set([0xff, 0xfb, 0x90, 0x00]);
  ascii(tag).copy(f, 36);
  u32be(bytes === undefined ? 1 : 3).copy(f, 40);
  u32be(frames).copy(f, 44);
  if (bytes !== undefined) u32be(bytes).copy(f, 48);
  return f;
}
function id3v2(bodyLength: number): Buffer {
  const tit2 = Buffer.concat([ascii('TIT2'), u32be(6), Buffer.from([0, 0, 3]), ascii('Hello')]);
  const body = Buffer.concat([tit2, Buffer.alloc(bodyLength - tit2.length)]); // the rest is padding
  const syncsafe = [21, 14, 7, 0].map((s) => (bodyLength >> s) & 0x7f);
  return Buffer.concat([ascii('ID3'), Buffer.from([4, 0, 0, ...syncsafe]), body]);
}
const id3v1 = () => Buffer.concat([ascii('TAG'), Buffer.alloc(125, 0x20)]);
const FRAME_SECONDS = 1152 / 44100;

test('MP3: frame walk over 200 frames reaches the end, so the count is exact', async () => {
  assertSeconds(await probe(Buffer.concat(mp3Frames(200))), 'mp3', 200 * FRAME_SECONDS, true);
});

test('MP3: a Xing header gives the frame count without a walk', async () => {
  const audio = mp3Frames(200);
  const bytes = 417 + audio.reduce((s, f) => s + f.length, 0);
  const file = Buffer.concat([xingFrame('Xing', 200, bytes), ...audio]);
  assertSeconds(await probe(file), 'mp3', 200 * FRAME_SECONDS, true);
  const info = Buffer.concat([xingFrame('Info', 200), ...audio]); // CBR files from LAME say "Info"
  assertSeconds(await probe(info), 'mp3', 200 * FRAME_SECONDS, true);
});

test('MP3: ID3v2 at the start and ID3v1 at the end are skipped', async () => {
  const file = Buffer.concat([id3v2(1000), ...mp3Frames(150), id3v1()]);
  assertSeconds(await probe(file), 'mp3', 150 * FRAME_SECONDS, true);
  const tagged = Buffer.concat([id3v2(2000), xingFrame('Xing', 150), ...mp3Frames(150), id3v1()]);
  assertSeconds(await probe(tagged), 'mp3', 150 * FRAME_SECONDS, true);
});

test('MP3: a Xing count the file cannot hold (lying low or truncated) falls back to the walk', async () => {
  const audio = mp3Frames(200);
  // 10 frames claimed for 200 frames' bytes would be ~2.5 Mbit/s: Layer III tops out at 320.
  const liar = Buffer.concat([xingFrame('Xing', 10), ...audio]);
  assertSeconds(await probe(liar), 'mp3', 201 * FRAME_SECONDS, true); // the Info frame is a silent frame too
  // A byte count 4x the file: the upload was cut short, so the header's frame count overstates it.
  const cut = Buffer.concat([xingFrame('Xing', 800, 800 * 418), ...audio]);
  assertSeconds(await probe(cut), 'mp3', 201 * FRAME_SECONDS, true);
});

test('MP3: MPEG-2 Layer III (576 samples a frame) at 22.05 kHz mono', async () => {
  const frames: Buffer[] = [];
  for (let i = 0; i < 120; i++) frames.push(Buffer.concat([Buffer.from([0xff, 0xf3, 0x80, 0xc4]), Buffer.alloc(204)]));
  assertSeconds(await probe(Buffer.concat(frames)), 'mp3', (120 * 576) / 22050, true);
});

test('MP3: a 25 MB file without a Xing header is extrapolated from a bounded walk', async () => {
  const frameCount = 60_000;
  const file = Buffer.concat(mp3Frames(frameCount));
  const started = performance.now();
  const { result, bytesRead, reads } = await probeCounting(file);
  assertSeconds(result, 'mp3', frameCount * FRAME_SECONDS, false, 0.002);
  assert.ok(bytesRead <= 400 * 1024, `read ${bytesRead} bytes of a ${file.length}-byte file`);
  assert.ok(reads < 20, `${reads} reads`);
  assert.ok(performance.now() - started < 1000);
});

test('MP3: junk after the first frames extrapolates over the rest instead of stopping there', async () => {
  // One frame, then garbage, then more: billing only the first frame would let a client skip paying.
  const file = Buffer.concat([...mp3Frames(5), Buffer.alloc(100, 0x55), ...mp3Frames(300, 5)]);
  const p = await probe(file);
  assertSeconds(p, 'mp3', (file.length / (5 * 417.96)) * 5 * FRAME_SECONDS, false, 0.01);
});

// ---- FLAC ----

function flac(rate: number, channels: number, bits: number, total: bigint): Buffer {
  const info = Buffer.alloc(34);
  info.writeUInt16BE(4096, 0);
  info.writeUInt16BE(4096, 2);
  info.writeBigUInt64BE((BigInt(rate) << 44n) | (BigInt(channels - 1) << 41n) | (BigInt(bits - 1) << 36n) | total, 10);
  return Buffer.concat([ascii('fLaC'), Buffer.from([0x80, 0, 0, 34]), info, noise(5000, 3)]);
}

test('FLAC: STREAMINFO samples ÷ rate, including a 36-bit sample count and an ID3v2 prefix', async () => {
  assertSeconds(await probe(flac(44100, 2, 16, 154350n)), 'flac', 3.5, true);
  assertSeconds(await probe(flac(96000, 2, 24, 96000n * 50000n)), 'flac', 50000, true); // 4.8e9 samples > 2^32
  assertSeconds(await probe(Buffer.concat([id3v2(500), flac(16000, 1, 16, 16000n * 7n)])), 'flac', 7, true);
  assert.equal(await probe(flac(44100, 2, 16, 0n)), undefined); // 0 = unknown
});

// ---- Ogg ----

/** Ogg's CRC-32 (polynomial 0x04C11DB7, no reflection, init 0), bit by bit: independent of the module's table. */
function oggCrc(b: Buffer): number {
  let crc = 0;
  for (const byte of b) {
    crc ^= byte << 24;
    for (let k = 0; k < 8; k++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    crc >>>= 0;
  }
  return crc;
}
function oggPage(serial: number, seq: number, granule: bigint, flags: number, packets: Buffer[]): Buffer {
  const lacing: number[] = [];
  for (const p of packets) {
    for (let left = p.length; ; left -= 255) { lacing.push(Math.min(left, 255)); if (left < 255) break; }
  }
  const h = Buffer.alloc(27);
  ascii('OggS').copy(h, 0);
  h[5] = flags;
  h.writeBigInt64LE(granule, 6);
  h.writeUInt32LE(serial, 14);
  h.writeUInt32LE(seq, 18);
  h[26] = lacing.length;
  const page = Buffer.concat([h, Buffer.from(lacing), ...packets]);
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}
function oggStream(serial: number, idHeader: Buffer, lastGranule: bigint, rate: number): Buffer {
  const pages = [oggPage(serial, 0, 0n, 2, [idHeader]), oggPage(serial, 1, 0n, 0, [ascii('OpusTags\x00\x00\x00\x00\x00\x00\x00\x00')])];
  for (let i = 0; i < 40; i++) pages.push(oggPage(serial, 2 + i, BigInt(rate) * BigInt(i + 1) / 10n, 0, [noise(300, i + 1), noise(200, i + 99)]));
  // A decoy: "OggS" inside the last packet, which the backward search meets first and the CRC rejects.
  const last = Buffer.concat([noise(100, 5), ascii('OggS\x00\x00'), noise(100, 6)]);
  pages.push(oggPage(serial, 42, lastGranule, 4, [last]));
  return Buffer.concat(pages);
}
function opusHead(preSkip: number): Buffer {
  return Buffer.concat([ascii('OpusHead'), Buffer.from([1, 1]), u16le(preSkip), u32le(16000), u16le(0), Buffer.from([0])]);
}

test('Ogg Opus: (last granule − pre-skip) ÷ 48000, past a decoy "OggS" in the packet data', async () => {
  const file = oggStream(0x1234, opusHead(312), 312n + 48000n * 29n / 4n, 48000);
  assertSeconds(await probe(file), 'ogg', 7.25, true);
});

test('Ogg Opus: a last page cut off by a truncated upload falls back to the page before it', async () => {
  const file = oggStream(0x1234, opusHead(312), 312n + 48000n * 9n, 48000);
  const p = await probe(file.subarray(0, file.length - 50));
  assertSeconds(p, 'ogg', (48000 * 40 / 10 - 312) / 48000, true); // the 40th data page: granule 4.0 s
});

test('Ogg Vorbis: a real identification page (44.1 kHz), last granule ÷ rate', async () => {
  // The Vorbis identification page of a real file (CRC included), as the first page of the stream.
  const real = Buffer.from([
    0x4f, 0x67, 0x67, 0x53, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4b, 0x86, 0x5c, 0x7d, 0x00, 0x00,
    0x00, 0x00, 0xc1, 0xe3, 0xe7, 0xef, 0x01, 0x1e, 0x01, 0x76, 0x6f, 0x72, 0x62, 0x69, 0x73, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x44, 0xac, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x77, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb8, 0x01,
  ]);
  assert.equal(oggCrc(Buffer.concat([real.subarray(0, 22), Buffer.alloc(4), real.subarray(26)])), real.readUInt32LE(22));
  const rest = oggStream(0x7d5c864b, real.subarray(28), 44100n * 4n, 44100).subarray(28 + 30);
  assertSeconds(await probe(Buffer.concat([real, rest])), 'ogg', 4, true);
});

test('Ogg: another codec (FLAC-in-Ogg) or a tail of another stream gives undefined', async () => {
  assert.equal(await probe(oggStream(7, Buffer.concat([ascii('\x7fFLAC'), Buffer.alloc(40)]), 48000n, 48000)), undefined);
  const head = oggStream(7, opusHead(0), 48000n, 48000).subarray(0, 500);
  const foreign = oggPage(8, 1, 480000n, 4, [noise(100)]);
  assert.equal(await probe(Buffer.concat([head, foreign])), undefined);
});

// ---- MP4 ----

function box(type: string, ...body: Buffer[]): Buffer {
  const b = Buffer.concat(body);
  return Buffer.concat([u32be(8 + b.length), ascii(type), b]);
}
function mvhd(version: 0 | 1, timescale: number, duration: bigint): Buffer {
  const times = version ? Buffer.concat([u64be(0n), u64be(0n), u32be(timescale), u64be(duration)]) : Buffer.concat([u32be(0), u32be(0), u32be(timescale), u32be(Number(duration))]);
  return box('mvhd', Buffer.from([version, 0, 0, 0]), times, Buffer.alloc(80));
}
function mdhd(version: 0 | 1, timescale: number, duration: bigint): Buffer {
  return box('mdhd', mvhd(version, timescale, duration).subarray(8, version ? 40 : 28), Buffer.alloc(4));
}
const hdlr = (handler: string) => box('hdlr', Buffer.alloc(8), ascii(handler), Buffer.alloc(13));
const trak = (handler: string, header: Buffer) => box('trak', box('tkhd', Buffer.alloc(84)), box('mdia', header, hdlr(handler), box('minf')));
const ftyp = box('ftyp', ascii('M4A '), u32be(0), ascii('M4A isom'));

test('MP4: M4A with a 64-bit mdat and moov at the end; mvhd version 1', async () => {
  const payload = noise(100_000, 9);
  const mdat = Buffer.concat([u32be(1), ascii('mdat'), u64be(BigInt(16 + payload.length)), payload]);
  const moov = box('moov', mvhd(1, 44100, 44100n * 25n / 2n), trak('soun', mdhd(1, 44100, 44100n * 25n / 2n)));
  assertSeconds(await probe(Buffer.concat([ftyp, mdat, moov])), 'mp4', 12.5, true);
});

test('MP4: mvhd duration 0 uses the sound track\'s mdhd, not the video track\'s', async () => {
  const moov = box('moov', mvhd(0, 1000, 0n), trak('vide', mdhd(0, 90000, 90000n * 60n)), trak('soun', mdhd(0, 48000, 48000n * 16n / 5n)));
  assertSeconds(await probe(Buffer.concat([ftyp, box('free', Buffer.alloc(10)), moov, box('mdat', Buffer.alloc(1000))])), 'mp4', 3.2, true);
});

test('MP4: hostile boxes — huge largesize, a size smaller than its header, timescale 0, no moov', async () => {
  const huge = Buffer.concat([u32be(1), ascii('mdat'), u64be(0xfffffffffffffff0n), Buffer.alloc(64)]);
  assert.equal(await probe(Buffer.concat([ftyp, huge, box('moov', mvhd(0, 1000, 5000n))])), undefined);
  assert.equal(await probe(Buffer.concat([ftyp, u32be(4), ascii('free'), box('moov', mvhd(0, 1000, 5000n))])), undefined);
  assert.equal(await probe(Buffer.concat([ftyp, box('moov', mvhd(0, 0, 5000n))])), undefined);
  assert.equal(await probe(Buffer.concat([ftyp, box('mdat', Buffer.alloc(100))])), undefined);
  // A moov whose size runs past the end of the file: its mvhd is still there to read.
  const cut = Buffer.concat([ftyp, u32be(1_000_000), ascii('moov'), mvhd(0, 1000, 5000n)]);
  assertSeconds(await probe(cut), 'mp4', 5, true);
});

test('MP4: 100,000 empty boxes cost a bounded number of reads', async () => {
  const many = Buffer.concat([ftyp, Buffer.concat(Array.from({ length: 100_000 }, () => box('free')))]);
  const started = performance.now();
  const { result, reads } = await probeCounting(many);
  assert.equal(result, undefined);
  assert.ok(reads <= PROBE_READS + 1, `${reads} reads`);
  assert.ok(performance.now() - started < 2000);
});

// Fragmented MP4 (Safari's MediaRecorder): moov says 0, the samples are described in moof/traf/trun.

function tkhd(id: number): Buffer {
  const b = Buffer.alloc(84);
  b.writeUInt32BE(id, 12); // version 0: after flags, creation and modification times
  return box('tkhd', b);
}
const trakWithId = (handler: string, id: number, header: Buffer) => box('trak', tkhd(id), box('mdia', header, hdlr(handler), box('minf')));
const trex = (id: number, duration: number, size = 0) => box('trex', u32be(0), u32be(id), u32be(1), u32be(duration), u32be(size), u32be(0));

/** ftyp + moov of a fragmented file: sound track `audioId` at 48 kHz (and a video track first, if asked). */
function fmp4Init(o: { audioId?: number; video?: boolean; mehd?: Buffer; trexDuration?: number } = {}): Buffer {
  const id = o.audioId ?? 1;
  const traks = [...(o.video ? [trakWithId('vide', 9, mdhd(0, 90000, 0n))] : []), trakWithId('soun', id, mdhd(0, 48000, 0n))];
  const mvex = box('mvex', ...(o.mehd ? [o.mehd] : []), ...(o.video ? [trex(9, 3000)] : []), trex(id, o.trexDuration ?? 1024));
  return Buffer.concat([box('ftyp', ascii('iso5'), u32be(512), ascii('iso5iso6mp41')), box('moov', mvhd(0, 1000, 0n), ...traks, mvex)]);
}

/** One moof+mdat: `count` samples of track `id` (per-sample durations if given, else the defaults), tfdt if given. */
function fragment(seq: number, id: number, o: { tfdt?: bigint; count?: number; durations?: number[]; defaultDuration?: number; countField?: number } = {}): Buffer {
  const count = o.durations?.length ?? o.count ?? 47, sampleBytes = 9;
  const tfhdFlags = 0x020000 | (o.defaultDuration ? 0x08 : 0); // default-base-is-moof
  const tfhd = box('tfhd', u32be(tfhdFlags), u32be(id), ...(o.defaultDuration ? [u32be(o.defaultDuration)] : []));
  const tfdt = o.tfdt === undefined ? [] : [box('tfdt', Buffer.from([1, 0, 0, 0]), u64be(o.tfdt))];
  const trunFlags = 0x001 | 0x200 | (o.durations ? 0x100 : 0); // data_offset, sample sizes, durations when given
  const entries = Array.from({ length: count }, (_, k) => Buffer.concat([...(o.durations ? [u32be(o.durations[k])] : []), u32be(sampleBytes)]));
  const build = (dataOffset: number) => box('moof', box('mfhd', u32be(0), u32be(seq)),
    box('traf', tfhd, ...tfdt, box('trun', u32be(trunFlags), u32be(o.countField ?? count), u32be(dataOffset), ...entries)));
  const moof = build(build(0).length + 8);
  return Buffer.concat([moof, box('mdat', noise(count * sampleBytes, seq + 1))]);
}
/** `n` fragments of 47 AAC frames (1024 samples each at 48 kHz), decode times running from `start`. */
function fragments(n: number, id = 1, start = 0n, tfdt = true): Buffer[] {
  return Array.from({ length: n }, (_, i) => fragment(i + 1, id, { tfdt: tfdt ? start + BigInt(i * 47 * 1024) : undefined }));
}
const AAC_FRAME = 1024 / 48000;

test('fragmented MP4: Safari layout (mvhd 0, mvex/trex) sums the truns of every moof', async () => {
  const file = Buffer.concat([fmp4Init(), ...fragments(20)]);
  const { result, reads } = await probeCounting(file);
  assertSeconds(result, 'mp4', (20 * 47 * 1024) / 48000, true);
  assert.ok(reads < 100, `${reads} reads`);
  // Per-sample durations (a short last frame) and tfhd's default override trex's.
  const last = fragment(3, 1, { tfdt: 2n * 47n * 1024n, durations: [...Array(46).fill(1024), 512] });
  const mixed = Buffer.concat([fmp4Init({ trexDuration: 0 }), fragment(1, 1, { defaultDuration: 1024 }), fragment(2, 1, { defaultDuration: 1024 }), last]);
  assertSeconds(await probe(mixed), 'mp4', (3 * 47 * 1024 - 512) / 48000, true);
});

test('fragmented MP4: mvex/mehd gives the duration; a video track\'s trafs are not counted', async () => {
  const mehd = box('mehd', u32be(0), u32be(12_345)); // in mvhd's timescale (1000)
  assertSeconds(await probe(Buffer.concat([fmp4Init({ mehd }), ...fragments(2)])), 'mp4', 12.345, true);
  const av = Buffer.concat([fmp4Init({ video: true, audioId: 2 }), ...[1, 2, 3].flatMap((i) => [
    fragment(2 * i, 9, { count: 30, defaultDuration: 3000 }), fragment(2 * i + 1, 2, { tfdt: BigInt((i - 1) * 47 * 1024) })])]);
  assertSeconds(await probe(av), 'mp4', (3 * 47 * 1024) / 48000, true);
  assert.equal(await probe(fmp4Init()), undefined); // a recording stopped before its first fragment
});

test('fragmented MP4: too many fragments to walk uses the last moof\'s tfdt, from the first moof\'s', async () => {
  const n = 1500; // ~25 minutes; the walk stops after a few hundred fragments and the tail has the last moof
  const file = Buffer.concat([fmp4Init(), ...fragments(n, 1, 48000n * 3600n)]); // decode times start at 1 h
  const started = performance.now();
  const { result, bytesRead, reads } = await probeCounting(file);
  assertSeconds(result, 'mp4', (n * 47 * 1024) / 48000, false, AAC_FRAME / 1700);
  assert.ok(bytesRead <= PROBE_BUDGET && reads <= PROBE_READS, `${bytesRead} bytes, ${reads} reads`);
  assert.ok(performance.now() - started < 1000);
  // Without tfdt the walked fragments are scaled to the file's size (equal fragments: the same number).
  const noTfdt = Buffer.concat([fmp4Init(), ...fragments(n, 1, 0n, false)]);
  assertSeconds(await probe(noTfdt), 'mp4', (n * 47 * 1024) / 48000, false, 0.01);
});

test('fragmented MP4: a truncated moof or mdat counts what is whole, exact: false', async () => {
  const whole = Buffer.concat([fmp4Init(), ...fragments(10)]);
  const lastMoofAt = whole.length - fragment(10, 1, { tfdt: 9n * 47n * 1024n }).length;
  assertSeconds(await probe(whole.subarray(0, lastMoofAt + 40)), 'mp4', (9 * 47 * 1024) / 48000, false); // inside the moof
  assertSeconds(await probe(whole.subarray(0, whole.length - 100)), 'mp4', (10 * 47 * 1024) / 48000, false); // inside the mdat
});

test('fragmented MP4: a trun sample_count of 2^32−1, with or without sample entries, is refused cheaply', async () => {
  for (const durations of [undefined, [1024, 1024]]) {
    const liar = fragment(2, 1, { tfdt: 47n * 1024n, durations, countField: 0xffffffff });
    const file = Buffer.concat([fmp4Init(), fragment(1, 1, { tfdt: 0n }), liar, fragment(3, 1, { tfdt: 0n })]);
    const started = performance.now();
    const { result, bytesRead } = await probeCounting(file);
    assert.equal(result, undefined, JSON.stringify(result));
    assert.ok(bytesRead < 4096 && performance.now() - started < 200);
  }
  // A 'moof' in the tail that is not one (no mfhd, a size past the end) is passed over for the real last moof.
  const bait = Buffer.concat([fmp4Init(), ...fragments(1500), box('free', u32be(0xffff0000), ascii('moof'), u64be(1n << 60n))]);
  assertSeconds(await probe(bait), 'mp4', (1500 * 47 * 1024) / 48000, false, 1e-6);
});

// ---- WebM ----

function ebml(id: number, ...body: Buffer[]): Buffer {
  const b = Buffer.concat(body);
  const idBytes = Buffer.from(id.toString(16).padStart(id > 0xffffff ? 8 : id > 0xffff ? 6 : id > 0xff ? 4 : 2, '0'), 'hex');
  const size = b.length < 127 ? Buffer.from([0x80 | b.length]) : Buffer.from([0x01, 0, 0, 0, 0, 0, 0, 0]);
  if (b.length >= 127) size.writeUIntBE(b.length, 2, 6);
  return Buffer.concat([idBytes, size, b]);
}
const UNKNOWN_SIZE = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
const ebmlHeader = ebml(0x1a45dfa3, ebml(0x4286, Buffer.from([1])), ebml(0x4282, ascii('webm')));
const float64 = (v: number) => { const b = Buffer.alloc(8); b.writeDoubleBE(v); return b; };
const float32 = (v: number) => { const b = Buffer.alloc(4); b.writeFloatBE(v); return b; };
const tracks = ebml(0x1654ae6b, ebml(0xae, ebml(0xd7, Buffer.from([1])), ebml(0x86, ascii('A_OPUS'))));
const cluster = (bytes: number) => ebml(0x1f43b675, ebml(0xe7, Buffer.from([0])), ebml(0xa3, noise(bytes, 4)));
const segment = (...children: Buffer[]) => Buffer.concat([Buffer.from([0x18, 0x53, 0x80, 0x67]), UNKNOWN_SIZE, ...children]);

test('WebM: Info Duration (float64) × TimecodeScale, inside a Segment of unknown size', async () => {
  const info = ebml(0x1549a966, ebml(0x2ad7b1, Buffer.from([0x0f, 0x42, 0x40])), ebml(0x4d80, ascii('test')), ebml(0x4489, float64(12345.5)));
  const file = Buffer.concat([ebmlHeader, segment(ebml(0xec, Buffer.alloc(50)), info, tracks, cluster(4000))]);
  assertSeconds(await probe(file), 'webm', 12.3455, true);
});

test('WebM: float32 Duration with the default scale, and a non-default scale', async () => {
  const file = Buffer.concat([ebmlHeader, segment(ebml(0x1549a966, ebml(0x4489, float32(2500))), cluster(100))]);
  assertSeconds(await probe(file), 'webm', 2.5, true);
  const scaled = Buffer.concat([ebmlHeader, segment(ebml(0x1549a966, ebml(0x2ad7b1, Buffer.from([0x01, 0x86, 0xa0])), ebml(0x4489, float64(2000))), cluster(100))]);
  assertSeconds(await probe(scaled), 'webm', 0.2, true); // 2000 ticks of 100 µs
});

test('WebM: Info after an unknown-size Cluster is found through the SeekHead', async () => {
  const info = ebml(0x1549a966, ebml(0x4489, float64(61000)));
  const clusterUnknown = Buffer.concat([Buffer.from([0x1f, 0x43, 0xb6, 0x75]), UNKNOWN_SIZE, ebml(0xe7, Buffer.from([0])), noise(3000, 8)]);
  const seekHeadFor = (pos: number) => ebml(0x114d9b74, ebml(0x4dbb, ebml(0x53ab, Buffer.from([0x15, 0x49, 0xa9, 0x66])), ebml(0x53ac, u32be(pos))));
  const seekLength = seekHeadFor(0).length;
  const file = Buffer.concat([ebmlHeader, segment(seekHeadFor(seekLength + clusterUnknown.length), clusterUnknown, info)]);
  assertSeconds(await probe(file), 'webm', 61, true);
});

test('WebM: no Duration and no block that parses, or a NaN Duration and no Cluster, give undefined', async () => {
  // The only block claims track 9, which Tracks never declared: not something to take a timecode from.
  const stray = Buffer.concat([ebmlHeader, segment(ebml(0x1549a966, ebml(0x2ad7b1, Buffer.from([0x0f, 0x42, 0x40]))), tracks, clusterOf(0, [simpleBlock(9, 0, opusPacket(0))]))]);
  assert.equal(await probe(stray), undefined);
  assert.equal(await probe(Buffer.concat([ebmlHeader, segment(ebml(0x1549a966, ebml(0x4489, float64(NaN))))])), undefined);
});

// A browser's MediaRecorder (Chrome, Firefox) writes no Duration: the end of the last block is the estimate.

/** A SimpleBlock: track number (a 1-byte vint), signed 16-bit timecode relative to its Cluster, flags (keyframe). */
function simpleBlock(track: number, relative: number, payload: Buffer): Buffer {
  const h = Buffer.from([0x80 | track, 0, 0, 0x80]);
  h.writeInt16BE(relative, 1);
  return ebml(0xa3, h, payload);
}
/** An Opus packet whose TOC byte says one 20 ms CELT frame (config 31, code 0), as Chrome and Firefox record. */
const opusPacket = (i: number, bytes = 60) => Buffer.concat([Buffer.from([0xfc]), noise(bytes - 1, i + 1)]);
const CLUSTER_ID = Buffer.from([0x1f, 0x43, 0xb6, 0x75]);
/** A Cluster of unknown size (Chrome's, written live) or of known size (Firefox's). */
const clusterOf = (timecode: number, blocks: Buffer[], unknownSize = true) => unknownSize
  ? Buffer.concat([CLUSTER_ID, UNKNOWN_SIZE, ebml(0xe7, u32be(timecode)), ...blocks])
  : ebml(0x1f43b675, ebml(0xe7, u32be(timecode)), ...blocks);
const liveInfo = ebml(0x1549a966, ebml(0x2ad7b1, Buffer.from([0x0f, 0x42, 0x40])), ebml(0x4d80, ascii('Chrome')), ebml(0x5741, ascii('Chrome')));

/** `ms` of 20 ms Opus packets, one per SimpleBlock, in Clusters of `clusterMs`: what MediaRecorder uploads. */
function recording(ms: number, o: { clusterMs?: number; packetBytes?: number; knownSize?: boolean; last?: Buffer } = {}): Buffer {
  const clusterMs = o.clusterMs ?? 5000, clusters: Buffer[] = [];
  for (let c = 0; c < ms; c += clusterMs) {
    const blocks: Buffer[] = [];
    for (let t = c; t < Math.min(c + clusterMs, ms); t += 20) {
      const packet = t + 20 >= ms && o.last ? o.last : opusPacket(t / 20, o.packetBytes);
      blocks.push(simpleBlock(1, t - c, packet));
    }
    clusters.push(clusterOf(c, blocks, !o.knownSize));
  }
  return Buffer.concat([ebmlHeader, segment(liveInfo, tracks, ...clusters)]);
}
const OPUS_FRAME = 0.02;

test('WebM live: Chrome MediaRecorder layout (unknown sizes, no Duration) ends at the last block plus its 20 ms', async () => {
  const file = recording(61_500);
  const { result, bytesRead } = await probeCounting(file);
  assertSeconds(result, 'webm', 61.5, false);
  assert.ok(bytesRead <= file.length, `${bytesRead} bytes`);
  // Firefox writes Clusters of known size; a 1 ms-tick scale is the usual one, 100 µs ticks must scale too.
  assertSeconds(await probe(recording(7_000, { knownSize: true, clusterMs: 1000 })), 'webm', 7, false);
  const fine = Buffer.from(recording(2_000).toString('latin1').replace('\x2a\xd7\xb1\x83\x0f\x42\x40', '\x2a\xd7\xb1\x83\x01\x86\xa0'), 'latin1');
  assertSeconds(await probe(fine), 'webm', 0.198 + OPUS_FRAME, false); // blocks at 0..1980 ticks of 100 µs, then 20 ms
});

test('WebM live: a 5-minute recording is read from its tail, not walked', async () => {
  const file = recording(300_000, { packetBytes: 160 }); // ~2.5 MB
  const { result, bytesRead, reads } = await probeCounting(file);
  assertSeconds(result, 'webm', 300, false);
  assert.ok(bytesRead <= 2 * 64 * 1024 + 4096, `${bytesRead} bytes`);
  assert.ok(reads < 20, `${reads} reads`);
});

test('WebM live: a BlockGroup\'s BlockDuration, Cues after the last Cluster, and a cut-off last block', async () => {
  const group = ebml(0xa0, ebml(0xa1, Buffer.from([0x81, 0x01, 0xf4, 0x00]), opusPacket(1)), ebml(0x9b, Buffer.from([10])));
  const cues = ebml(0x1c53bb6b, ebml(0xbb, ebml(0xb3, Buffer.from([0])), ebml(0xb7, ebml(0xf7, Buffer.from([1])), ebml(0xf1, Buffer.from([0])))));
  const blocks = [simpleBlock(1, 0, opusPacket(0)), group];
  const file = Buffer.concat([ebmlHeader, segment(liveInfo, tracks, clusterOf(0, [simpleBlock(1, 0, opusPacket(2))], false), clusterOf(4000, blocks, false), cues)]);
  assertSeconds(await probe(file), 'webm', 4.5 + 0.01, false); // 4000 + 500 ticks, then BlockDuration 10 ms
  // An upload cut inside its last block: that block is not audio a decoder plays, the one before it is.
  const cut = recording(10_000);
  assertSeconds(await probe(cut.subarray(0, cut.length - 30)), 'webm', 10 - OPUS_FRAME, false);
});

test('WebM live: a fake Cluster with a huge timecode inside the last packet is stepped over', async () => {
  // A Cluster ID, an 8-byte Timecode of 2^55 ms and a block of track 1 — then the rest of the packet's bytes.
  const fake = Buffer.concat([Buffer.from([0xfc]), CLUSTER_ID, UNKNOWN_SIZE, ebml(0xe7, u64be(1n << 55n)), simpleBlock(1, 0, Buffer.from([0xfc, 1, 2])), Buffer.alloc(20)]);
  const file = recording(20_000, { last: fake });
  assertSeconds(await probe(file), 'webm', 20, false);
  const big = recording(400_000, { last: fake, packetBytes: 150 }); // tail holds real Clusters before the fake
  assertSeconds(await probe(big), 'webm', 400, false);
  // One 32 s Cluster bigger than the tail: no real Cluster start to walk from, and the fake alone must not do.
  const long = recording(32_000, { clusterMs: 32_000, packetBytes: 300, last: fake });
  const { result, bytesRead, reads } = await probeCounting(long);
  assert.equal(result, undefined);
  assert.ok(bytesRead <= PROBE_BUDGET && reads < 30, `${bytesRead} bytes, ${reads} reads`);
});

test('WebM live: a tail stuffed with Cluster IDs and random timecodes costs bounded CPU and gives nothing wild', async () => {
  const fakes: Buffer[] = [];
  const r = noise(4 * 20_000, 11);
  for (let i = 0; i < 20_000; i++) fakes.push(CLUSTER_ID, UNKNOWN_SIZE, ebml(0xe7, r.subarray(4 * i, 4 * i + 4)));
  const file = Buffer.concat([recording(3_000), ...fakes]);
  const started = performance.now();
  const { result, bytesRead } = await probeCounting(file);
  assert.ok(result === undefined || (result.seconds >= 0 && result.seconds < 3 + 4.3e6), JSON.stringify(result));
  assert.ok(bytesRead <= PROBE_BUDGET);
  assert.ok(performance.now() - started < 1000);
  // Blocks of random bytes after a real header: no structure, no duration.
  for (let seed = 1; seed <= 5; seed++) {
    const junk = Buffer.concat([ebmlHeader, segment(liveInfo, tracks, clusterOf(0, [simpleBlock(1, 0, opusPacket(0))]), noise(200_000, seed))]);
    assert.equal(await probe(junk), undefined, `seed ${seed}`);
  }
});

// ---- Hostile input across every reader ----

test('empty, 1-byte and random files give undefined', async () => {
  assert.equal(await probe(Buffer.alloc(0)), undefined);
  assert.equal(await probe(Buffer.from([0xff])), undefined);
  assert.equal(await probe(ascii('R')), undefined);
  for (let seed = 1; seed <= 20; seed++) assert.equal(await probe(noise(70_000, seed)), undefined, `seed ${seed}`);
});

test('a missing file, a wrong size, or a size larger than the file never throws', async () => {
  assert.equal(await audioDuration(join(dir, 'nope'), 100), undefined);
  const file = Buffer.concat(mp3Frames(50));
  const path = save(file);
  assert.equal(await audioDuration(path, NaN), undefined);
  assert.equal(await audioDuration(path, -5), undefined);
  assertSeconds(await audioDuration(path, file.length * 10), 'mp3', 50 * FRAME_SECONDS, true);
  // Only the first `size` bytes are the upload: 10 frames' worth, walked to that end.
  const tenFrames = mp3Frames(10).reduce((s, f) => s + f.length, 0);
  assertSeconds(await audioDuration(path, tenFrames), 'mp3', 10 * FRAME_SECONDS, true);
});

test('every valid file, truncated at every length up to 400 bytes and at halves, never throws or hangs', async () => {
  const files = [
    wav([fmtChunk(24000, 1, 16), chunk('data', Buffer.alloc(4800))]),
    Buffer.concat([id3v2(100), xingFrame('Xing', 20), ...mp3Frames(20)]),
    flac(44100, 2, 16, 44100n),
    oggStream(3, opusHead(312), 48000n, 48000),
    Buffer.concat([ftyp, box('moov', mvhd(1, 1000, 2000n), trak('soun', mdhd(0, 1000, 2000n))), box('mdat', Buffer.alloc(500))]),
    Buffer.concat([ebmlHeader, segment(ebml(0x1549a966, ebml(0x4489, float64(1000))), cluster(500))]),
    recording(400, { clusterMs: 200 }),
    Buffer.concat([fmp4Init(), ...fragments(2)]),
  ];
  const started = performance.now();
  for (const file of files) {
    const cuts = [...Array.from({ length: 400 }, (_, i) => i), file.length >> 1, file.length - 1];
    for (const cut of cuts) {
      const p = await probe(file.subarray(0, Math.min(cut, file.length)));
      if (p) assert.ok(Number.isFinite(p.seconds) && p.seconds >= 0, `cut ${cut}: ${JSON.stringify(p)}`);
    }
  }
  assert.ok(performance.now() - started < 15_000);
});

test('each magic followed by random bytes stays within the read budget', async () => {
  const magics = [
    ascii('RIFF\x00\x00\x00\x00WAVE'), ascii('RF64\xff\xff\xff\xffWAVE'), ascii('OggS'), Buffer.from([0x1a, 0x45, 0xdf, 0xa3]),
    ascii('fLaC'), ascii('\x00\x00\x00\x18ftyp'), ascii('ID3\x04\x00\x00\x00\x00\x00\x00'), Buffer.from([0xff, 0xfb, 0x90, 0x00]),
  ];
  for (const magic of magics) {
    for (let seed = 1; seed <= 5; seed++) {
      const started = performance.now();
      const { result, bytesRead, reads } = await probeCounting(Buffer.concat([magic, noise(300_000, seed)]));
      if (result) assert.ok(Number.isFinite(result.seconds) && result.seconds >= 0);
      assert.ok(bytesRead <= PROBE_BUDGET && reads <= PROBE_READS + 1);
      assert.ok(performance.now() - started < 1000, `${magic.toString('latin1')} seed ${seed}`);
    }
  }
});

test('Ogg: a tail stuffed with fake page headers costs bounded CPU', async () => {
  const head = oggStream(0x1234, opusHead(0), 48000n, 48000).subarray(0, 200);
  const fake = Buffer.alloc(65536);
  for (let i = 0; i + 27 <= fake.length; i += 32) {
    ascii('OggS').copy(fake, i);
    fake.writeUInt32LE(0x1234, i + 14); // this stream's serial, a granule >= 0, and a bad CRC
    fake[i + 26] = 0;
  }
  const started = performance.now();
  const p = await probe(Buffer.concat([head, fake]));
  assert.ok(p === undefined || p.seconds >= 0);
  assert.ok(performance.now() - started < 500);
});
