// RIFF/WAVE with 16-bit PCM. OpenAI streams its `wav` answers, so their size fields say 0xFFFFFFFF ("unknown", as
// ffmpeg writes a WAV it cannot seek back into); the upload helper writes exact sizes, as a recorder would.
import type { Encoded } from './encoded.js';
import { SPEECH_RATE, pcmBytes } from './tone.js';

export const WAV_HEADER_BYTES = 44;
const UNKNOWN = 0xffffffff;

export function wavHeader(dataBytes: number, rate = SPEECH_RATE, streamed = false): Buffer {
  const h = Buffer.alloc(WAV_HEADER_BYTES);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(streamed ? UNKNOWN : 36 + dataBytes, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16); // fmt chunk size
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28); // byte rate
  h.writeUInt16LE(2, 32); // block align
  h.writeUInt16LE(16, 34); // bits per sample
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(streamed ? UNKNOWN : dataBytes, 40);
  return h;
}

/** Frames of 100 ms of PCM (2400 samples at 24 kHz) after the 44-byte header. */
export function encodeWav(seconds: number, rate = SPEECH_RATE, streamed = true): Encoded {
  const pcm = pcmBytes(seconds, rate);
  const step = (rate / 10) * 2;
  const frames: Buffer[] = [];
  for (let i = 0; i < pcm.length; i += step) frames.push(pcm.subarray(i, i + step));
  return { head: wavHeader(pcm.length, rate, streamed), frames, frameMs: 100 };
}

export function encodePcm(seconds: number, rate = SPEECH_RATE): Encoded {
  const { frames } = encodeWav(seconds, rate);
  return { head: Buffer.alloc(0), frames, frameMs: 100 };
}
