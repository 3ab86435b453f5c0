// FLAC, 24 kHz mono 16-bit, the layout OpenAI's `flac` answers have (2304-sample blocks): the fLaC marker, STREAMINFO
// (exact totals and the MD5 of the samples), a VORBIS_COMMENT naming the encoder, then frames whose one subframe is
// VERBATIM (the tone's samples as they are). Frame headers carry CRC-8 and frames CRC-16, as decoders check.
import { createHash } from 'node:crypto';
import { crc16, crc8 } from './crc.js';
import type { Encoded } from './encoded.js';
import { SPEECH_RATE, toneSamples } from './tone.js';

const BLOCK = 2304;
const BLOCK_CODE = 0b0100; // 576 × 2^(4-2) = 2304
const EXPLICIT_16BIT_BLOCK = 0b0111; // block size − 1 follows the header in 16 bits (the shorter last block)
const RATE_CODE = 0b0111; // 24 kHz
const VENDOR = 'switchyard-simulator';

/** FLAC's UTF-8-like coding of the frame number. */
function codedNumber(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  let len = 2;
  while (n >= 2 ** (5 * len + 1)) len++;
  for (let i = len - 1; i > 0; i--) bytes.unshift(0x80 | ((n >> (6 * (len - 1 - i))) & 0x3f));
  bytes.unshift(((0xff00 >> len) & 0xff) | (n >> (6 * (len - 1))));
  return bytes;
}

function frameOf(index: number, samples: Int16Array): Buffer {
  const full = samples.length === BLOCK;
  const header = [0xff, 0xf8, ((full ? BLOCK_CODE : EXPLICIT_16BIT_BLOCK) << 4) | RATE_CODE, 0b0000_100_0, ...codedNumber(index)];
  if (!full) header.push((samples.length - 1) >> 8, (samples.length - 1) & 0xff);
  header.push(crc8(Uint8Array.from(header)));
  const body = Buffer.alloc(1 + samples.length * 2);
  body[0] = 0b0_000001_0; // VERBATIM subframe, no wasted bits
  samples.forEach((s, i) => body.writeInt16BE(s, 1 + i * 2));
  const frame = Buffer.concat([Buffer.from(header), body, Buffer.alloc(2)]);
  frame.writeUInt16BE(crc16(frame.subarray(0, frame.length - 2)), frame.length - 2);
  return frame;
}

function streamInfo(samples: Int16Array, frames: Buffer[], rate: number): Buffer {
  const sizes = frames.map((f) => f.length);
  const b = Buffer.alloc(4 + 34);
  b.writeUInt32BE(34, 0); // type 0 (STREAMINFO), not last, length 34
  b.writeUInt16BE(BLOCK, 4);
  b.writeUInt16BE(BLOCK, 6);
  b.writeUIntBE(sizes.length ? Math.min(...sizes) : 0, 8, 3);
  b.writeUIntBE(sizes.length ? Math.max(...sizes) : 0, 11, 3);
  // 20 bits rate, 3 bits channels − 1, 5 bits bits-per-sample − 1, 36 bits total samples.
  const packed = (BigInt(rate) << 44n) | (0n << 41n) | (15n << 36n) | BigInt(samples.length);
  b.writeBigUInt64BE(packed, 14);
  const le = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => le.writeInt16LE(s, i * 2));
  createHash('md5').update(le).digest().copy(b, 22);
  return b;
}

function vorbisComment(): Buffer {
  const vendor = Buffer.from(VENDOR, 'utf8');
  const body = Buffer.alloc(4 + vendor.length + 4);
  body.writeUInt32LE(vendor.length, 0);
  vendor.copy(body, 4);
  body.writeUInt32LE(0, 4 + vendor.length); // no comments
  const head = Buffer.alloc(4);
  head.writeUInt32BE((0x80 | 4) * 2 ** 24 + body.length, 0); // last metadata block, type 4
  return Buffer.concat([head, body]);
}

export function encodeFlac(seconds: number, rate = SPEECH_RATE): Encoded {
  const samples = toneSamples(seconds, rate);
  const frames: Buffer[] = [];
  for (let i = 0; i * BLOCK < samples.length; i++) frames.push(frameOf(i, samples.subarray(i * BLOCK, (i + 1) * BLOCK)));
  const head = Buffer.concat([Buffer.from('fLaC', 'ascii'), streamInfo(samples, frames, rate), vorbisComment()]);
  return { head, frames, frameMs: (BLOCK / rate) * 1000 };
}
