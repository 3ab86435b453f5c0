// MPEG-2 Layer III at 24 kHz, mono, 128 kbit/s: the header OpenAI's mp3 answers carry (FF F3 C4 C4). Each frame is
// 384 bytes and 576 samples (24 ms); its side information is all zeros (no Huffman data, main_data_begin 0), which
// every decoder plays as silence. Encoding a real tone would need a psychoacoustic encoder, and silence is valid MP3.
import type { Encoded } from './encoded.js';

const HEADER = Buffer.from([0xff, 0xf3, 0xc4, 0xc4]);
export const MP3_FRAME_BYTES = 384; // 72 × 128000 / 24000, no padding
export const MP3_FRAME_SAMPLES = 576;
const RATE = 24000;

function silentFrame(): Buffer {
  const frame = Buffer.alloc(MP3_FRAME_BYTES); // 9 bytes of zero side info, then zero main data
  HEADER.copy(frame, 0);
  return frame;
}

export function encodeMp3(seconds: number): Encoded {
  const count = Math.max(1, Math.ceil((seconds * RATE) / MP3_FRAME_SAMPLES));
  const frame = silentFrame();
  return { head: Buffer.alloc(0), frames: Array.from({ length: count }, () => frame), frameMs: (MP3_FRAME_SAMPLES / RATE) * 1000 };
}
