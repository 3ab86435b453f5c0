// What an uploaded file is and how long it plays: WAV from its header, MP3 by walking its frame headers, FLAC from
// STREAMINFO, Ogg (Opus or Vorbis) from the last page's granule; MP4/M4A and WebM are recognised but their length is
// estimated (128 kbit/s), as parsing their boxes buys a test nothing. OpenAI bills transcriptions by this length.

export type Container = 'wav' | 'mp3' | 'flac' | 'ogg' | 'mp4' | 'webm';

export interface Probe {
  container: Container;
  seconds: number;
  /** False when the length is an estimate from the byte count. */
  exact: boolean;
}

const ESTIMATE_BYTES_PER_SECOND = 16000;

export function sniff(b: Buffer): Container | undefined {
  const ascii = (at: number, n: number) => b.subarray(at, at + n).toString('latin1');
  if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WAVE') return 'wav';
  if (ascii(0, 4) === 'fLaC') return 'flac';
  if (ascii(0, 4) === 'OggS') return 'ogg';
  if (ascii(4, 4) === 'ftyp') return 'mp4';
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) return 'webm';
  if (ascii(0, 3) === 'ID3' || mp3Frame(b, 0)) return 'mp3';
  return undefined;
}

/** Containers whose length can be read exactly; the others are estimated. */
const EXACT: Partial<Record<Container, (b: Buffer) => number | undefined>> = {
  wav: (b) => wavSeconds(b), mp3: (b) => mp3Seconds(b), flac: (b) => flacSeconds(b), ogg: (b) => oggSeconds(b),
};

export function probe(b: Buffer): Probe | undefined {
  const container = sniff(b);
  if (!container) return undefined;
  const exact = EXACT[container]?.(b);
  if (exact !== undefined) return { container, seconds: exact, exact: true };
  return { container, seconds: b.length / ESTIMATE_BYTES_PER_SECOND, exact: false };
}

/** Walks the RIFF chunks; a streamed WAV's 0xFFFFFFFF data size means "to the end of the file". */
function wavSeconds(b: Buffer): number | undefined {
  let byteRate = 0;
  for (let at = 12; at + 8 <= b.length;) {
    const id = b.subarray(at, at + 4).toString('latin1');
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 16 <= b.length) byteRate = b.readUInt32LE(at + 16);
    if (id === 'data') return byteRate ? Math.min(size, b.length - at - 8) / byteRate : undefined;
    at += 8 + size + (size % 2);
  }
  return undefined;
}

const MPEG1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MPEG2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** A Layer III frame header at `at`: its byte length and samples, or undefined. */
function mp3Frame(b: Buffer, at: number): { bytes: number; samples: number; rate: number } | undefined {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1] & 0xe0) !== 0xe0) return undefined;
  const version = (b[at + 1] >> 3) & 3; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
  const layer = (b[at + 1] >> 1) & 3; // 1 = Layer III
  const bitrateIndex = b[at + 2] >> 4;
  const rateIndex = (b[at + 2] >> 2) & 3;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const rate = RATES[version][rateIndex];
  const kbps = (version === 3 ? MPEG1_L3 : MPEG2_L3)[bitrateIndex];
  const samples = version === 3 ? 1152 : 576;
  const bytes = Math.floor(((samples / 8) * kbps * 1000) / rate) + ((b[at + 2] >> 1) & 1);
  return { bytes, samples, rate };
}

function mp3Seconds(b: Buffer): number | undefined {
  let at = 0;
  if (b.subarray(0, 3).toString('latin1') === 'ID3' && b.length >= 10) {
    at = 10 + ((b[6] << 21) | (b[7] << 14) | (b[8] << 7) | b[9]); // syncsafe tag size
  }
  let seconds = 0;
  for (let f = mp3Frame(b, at); f; f = mp3Frame(b, at)) {
    seconds += f.samples / f.rate;
    at += f.bytes;
  }
  return seconds > 0 ? seconds : undefined;
}

function flacSeconds(b: Buffer): number | undefined {
  if (b.length < 4 + 4 + 34) return undefined;
  const packed = b.readBigUInt64BE(18);
  const rate = Number(packed >> 44n);
  const total = Number(packed & 0xfffffffffn);
  return rate && total ? total / rate : undefined;
}

/** The last page's granule over the stream's rate (Opus: 48 kHz less the pre-skip; Vorbis: its header's rate). */
function oggSeconds(b: Buffer): number | undefined {
  const data = 27 + b[26]; // the first packet follows the first page's lacing values
  const last = b.lastIndexOf('OggS', b.length - 27, 'latin1');
  if (last < 0 || data + 16 > b.length) return undefined;
  const granule = Number(b.readBigUInt64LE(last + 6));
  if (b.subarray(data, data + 8).toString('latin1') === 'OpusHead') return Math.max(0, granule - b.readUInt16LE(data + 10)) / 48000;
  if (b.subarray(data + 1, data + 7).toString('latin1') === 'vorbis') return granule / b.readUInt32LE(data + 12);
  return undefined;
}
