// The sound every simulated voice makes: a quiet 440 Hz tone, 16-bit mono. A tone rather than silence so that a test
// (or a person listening to a file the gateway passed on) can tell real samples from a buffer of zeros.

export const SPEECH_RATE = 24000;
const PITCH = 440;
/** About -20 dBFS: audible, never clipping. */
const AMPLITUDE = 3000;

/** round(seconds × rate) samples of the tone, starting at phase 0 so the same call always gives the same samples. */
export function toneSamples(seconds: number, rate = SPEECH_RATE): Int16Array {
  const n = Math.max(0, Math.round(seconds * rate));
  return Int16Array.from({ length: n }, (_, i) => Math.round(AMPLITUDE * Math.sin((2 * Math.PI * PITCH * i) / rate)));
}

/** Raw 16-bit little-endian PCM (OpenAI's `pcm`, Gemini's `audio/L16`, Realtime's `audio/pcm`). */
export function pcmBytes(seconds: number, rate = SPEECH_RATE): Buffer {
  const samples = toneSamples(seconds, rate);
  const out = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => out.writeInt16LE(s, i * 2));
  return out;
}
