// The sound every simulated voice makes: a quiet 440 Hz tone, 16-bit mono. A tone rather than silence so that a test
// (or a person listening to a file the gateway passed on) can tell real samples from a buffer of zeros.

import { endianness } from 'node:os';

export const SPEECH_RATE = 24000;
const PITCH = 440;
/** About -20 dBFS: audible, never clipping. */
const AMPLITUDE = 3000;

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);

/**
 * round(seconds × rate) samples of the tone, starting at phase 0 so the same call always gives the same samples. The
 * tone repeats every rate / gcd(rate, 440) samples (400 at 16 kHz): one period is computed and copied along, as a long
 * upload is tens of millions of samples (the copies equal the formula's samples, checked up to 1,400 s at 8-48 kHz).
 */
export function toneSamples(seconds: number, rate = SPEECH_RATE): Int16Array {
  const n = Math.max(0, Math.round(seconds * rate));
  const out = new Int16Array(n);
  const period = Math.min(n, Number.isInteger(rate) ? rate / gcd(rate, PITCH) : n);
  for (let i = 0; i < period; i++) out[i] = Math.round(AMPLITUDE * Math.sin((2 * Math.PI * PITCH * i) / rate));
  for (let filled = period; filled < n; filled *= 2) out.copyWithin(filled, 0, Math.min(filled, n - filled));
  return out;
}

/** Raw 16-bit little-endian PCM (OpenAI's `pcm`, Gemini's `audio/L16`, Realtime's `audio/pcm`). */
export function pcmBytes(seconds: number, rate = SPEECH_RATE): Buffer {
  const samples = toneSamples(seconds, rate);
  if (endianness() === 'LE') return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const out = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => out.writeInt16LE(s, i * 2));
  return out;
}
