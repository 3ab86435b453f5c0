// ADTS-framed AAC-LC at 24 kHz, mono, as OpenAI's `aac` answers are (FF F1 58 40 …). Each raw data block is the
// smallest silent one the syntax allows: one single-channel element with max_sfb = 0 (no bands, so no spectral data)
// then END, 4 bytes (01 40 20 07: global_gain 160, long window, sine shape). 1024 samples per frame.
import type { Encoded } from './encoded.js';

const RAW_SILENT_BLOCK = Buffer.from([0x01, 0x40, 0x20, 0x07]);
const SAMPLES = 1024;
const RATE = 24000;
const RATE_INDEX = 6; // 24000 Hz in the MPEG-4 sampling frequency table
const CHANNELS = 1;

/** 7-byte ADTS header without CRC: MPEG-4, AAC-LC, buffer fullness 0x7FF (VBR), one raw data block. */
function adtsHeader(frameBytes: number): Buffer {
  const full = 0x7ff;
  return Buffer.from([
    0xff,
    0xf1,
    (1 << 6) | (RATE_INDEX << 2) | (CHANNELS >> 2),
    ((CHANNELS & 3) << 6) | (frameBytes >> 11),
    (frameBytes >> 3) & 0xff,
    ((frameBytes & 7) << 5) | (full >> 6),
    (full & 0x3f) << 2,
  ]);
}

export function encodeAac(seconds: number): Encoded {
  const frame = Buffer.concat([adtsHeader(7 + RAW_SILENT_BLOCK.length), RAW_SILENT_BLOCK]);
  const count = Math.max(1, Math.ceil((seconds * RATE) / SAMPLES));
  return { head: Buffer.alloc(0), frames: Array.from({ length: count }, () => frame), frameMs: (SAMPLES / RATE) * 1000 };
}
