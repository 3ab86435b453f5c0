// How many seconds an uploaded audio file lasts, read from its container headers so a transcription can be
// priced (per second) before the upload goes to a vendor. Bounded: at most PROBE_BUDGET bytes in at most
// PROBE_READS reads per file, whatever the file says about itself; never throws.
import { open } from 'node:fs/promises';
import { fileSource, fourcc, skipId3v2, type ByteSource, type Duration } from './byte-source.js';
import { wavDuration } from './wav-duration.js';
import { mp3Duration } from './mp3-duration.js';
import { flacDuration } from './flac-duration.js';
import { oggDuration } from './ogg-duration.js';
import { mp4Duration } from './mp4-duration.js';
import { webmDuration } from './webm-duration.js';

export type AudioFormat = 'wav' | 'mp3' | 'flac' | 'ogg' | 'mp4' | 'webm';
/** `exact` is false when `seconds` is an estimate (an MP3 walk cut short, a WAV cut short or streamed). */
export interface AudioProbe { format: AudioFormat; seconds: number; exact: boolean }

const READERS: Record<AudioFormat, (src: ByteSource) => Promise<Duration | undefined>> = {
  wav: wavDuration, mp3: mp3Duration, flac: flacDuration, ogg: oggDuration, mp4: mp4Duration, webm: webmDuration,
};
// First box types an ISO BMFF file can open with: 'ftyp' in MP4/M4A, the others in old QuickTime files.
const MP4_FIRST_BOX = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot']);

/** The container the first bytes announce (the file name and the client's content type are not trusted). */
async function detect(src: ByteSource): Promise<AudioFormat | undefined> {
  const h = await src.read(0, 12);
  const magic = fourcc(h, 0);
  if (['RIFF', 'RF64', 'BW64'].includes(magic) && fourcc(h, 8) === 'WAVE') return 'wav';
  if (magic === 'OggS') return 'ogg';
  if (magic === '\x1a\x45\xdf\xa3') return 'webm'; // the EBML header, shared by Matroska and WebM
  if (magic === 'fLaC') return 'flac';
  if (MP4_FIRST_BOX.has(fourcc(h, 4))) return 'mp4';
  const afterId3 = await skipId3v2(src);
  if (afterId3 > 0) return fourcc(await src.read(afterId3, 4), 0) === 'fLaC' ? 'flac' : 'mp3';
  // A bare MPEG audio frame sync (11 set bits) at byte 0; the MP3 reader checks the header properly.
  return h.length >= 2 && h[0] === 0xff && (h[1] & 0xe0) === 0xe0 ? 'mp3' : undefined;
}

/** Probes any ByteSource (tests use it to count the bytes read); undefined when no duration can be read. */
export async function probeAudio(src: ByteSource): Promise<AudioProbe | undefined> {
  try {
    const format = await detect(src);
    const d = format && (await READERS[format](src));
    if (!format || !d || !Number.isFinite(d.seconds) || d.seconds < 0) return undefined;
    return { format, seconds: d.seconds, exact: d.exact };
  } catch {
    return undefined; // the readers guard their reads; this is the net under a reader's mistake
  }
}

/** The duration of the audio spooled at `path`, of which `size` bytes are the upload. */
export async function audioDuration(path: string, size: number): Promise<AudioProbe | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
    // Never read past the upload, nor past what is really on disk if the caller's size is wrong.
    const onDisk = (await fh.stat()).size;
    return await probeAudio(fileSource(fh, Number.isSafeInteger(size) && size > 0 ? Math.min(size, onDisk) : 0));
  } catch {
    return undefined;
  } finally {
    await fh?.close().catch(() => {});
  }
}
