// Reads how long each upload a route prices by lasts (price_inputs.media_seconds), from the file's own header, once
// it is spooled and before anything is priced: a few reads at known offsets, never the whole file.
import { isSpooled, noteSeconds } from '../http/multipart.js';
import { valueAt } from '../http/body-numbers.js';
import { audioDuration, type AudioFormat, type AudioProbe } from './audio-duration.js';

export async function probeUploads(body: Record<string, unknown>, paths: string[][]): Promise<void> {
  for (const path of paths) {
    const v = valueAt(body, path);
    if (isSpooled(v)) noteSeconds(v, billableSeconds(await audioDuration(v.path, v.size), v.size));
  }
}

/**
 * The bytes' highest plausible rate per format (bits a second). WAV and MP3 durations are checked against the file's
 * size by their readers; the others are whatever the header claims, so a client could claim a short one. A file
 * lasts at least its size at the highest rate its format is used at (lossless 24-bit 96 kHz stereo for FLAC, Opus's
 * and Vorbis's maximum, a video track for MP4 and WebM), and the longer of the two is priced.
 */
const maxBitRate: Record<AudioFormat, number | undefined> = { wav: undefined, mp3: undefined, flac: 4_608_000, ogg: 512_000, mp4: 8_000_000, webm: 8_000_000 };

export function billableSeconds(probe: AudioProbe | undefined, size: number): number | undefined {
  if (!probe) return undefined;
  const rate = maxBitRate[probe.format];
  return rate ? Math.max(probe.seconds, (size * 8) / rate) : probe.seconds;
}
