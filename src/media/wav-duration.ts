// WAV (RIFF/WAVE, and RF64/BW64 for files over 4 GB): data bytes ÷ bytes per second of the fmt chunk.
import { fourcc, type ByteSource, type Duration } from './byte-source.js';

const MAX_CHUNKS = 256; // real files have a handful (fmt, fact, LIST, bext, data); a chunk loop must end
// Format tags whose blockAlign is one sample frame: PCM, IEEE float, A-law, µ-law, WAVE_FORMAT_EXTENSIBLE.
const FRAME_ALIGNED = new Set([1, 3, 6, 7, 0xfffe]);
const STREAMED = new Set([0, 0xffffffff]); // what recorders write when they cannot seek back to patch the size

export async function wavDuration(src: ByteSource): Promise<Duration | undefined> {
  const head = await src.read(0, 12);
  const riff = fourcc(head, 0);
  if (!['RIFF', 'RF64', 'BW64'].includes(riff) || fourcc(head, 8) !== 'WAVE') return undefined;
  let fmt: { tag: number; rate: number; align: number; byteRate: number } | undefined;
  let ds64Data: number | undefined; // RF64 keeps the real 64-bit data size in a 'ds64' chunk
  let factSamples: number | undefined; // compressed formats state their sample count in 'fact'
  let data: { offset: number; size: number; exact: boolean } | undefined;
  let at = 12;
  for (let i = 0; i < MAX_CHUNKS && at + 8 <= src.size && !(fmt && data); i++) {
    const h = await src.read(at, 8);
    if (h.length < 8) break;
    const id = fourcc(h, 0);
    const size = h.readUInt32LE(4);
    const body = at + 8;
    if (id === 'fmt ') {
      const f = await src.read(body, 16);
      if (f.length < 16) return undefined;
      fmt = { tag: f.readUInt16LE(0), rate: f.readUInt32LE(4), byteRate: f.readUInt32LE(8), align: f.readUInt16LE(12) };
    } else if (id === 'ds64') {
      const d = await src.read(body, 16);
      if (d.length === 16) ds64Data = Number(d.readBigUInt64LE(8));
    } else if (id === 'fact') {
      const d = await src.read(body, 4);
      if (d.length === 4) factSamples = d.readUInt32LE(0);
    } else if (id === 'data') {
      const remaining = src.size - body;
      let declared = riff !== 'RIFF' && size === 0xffffffff && ds64Data !== undefined ? ds64Data : size;
      // A streamed file never got its size patched: the samples run to the end of the file.
      const streamed = riff === 'RIFF' ? STREAMED.has(size) : declared === 0xffffffff;
      if (streamed) declared = remaining;
      // A size past the end is a truncated upload (or a lie): only the bytes present can be transcribed.
      data = { offset: body, size: Math.min(declared, remaining), exact: !streamed && declared <= remaining };
      if (streamed) break; // no chunk after a size we do not know; the walk cannot go on
    }
    const skip = id === 'data' && data ? data.size : size; // RF64's data header says 0xFFFFFFFF
    at = body + skip + (skip & 1); // chunks are padded to an even length
  }
  if (!fmt || !data || fmt.rate === 0) return undefined;
  if (FRAME_ALIGNED.has(fmt.tag) && fmt.align > 0) {
    return { seconds: Math.floor(data.size / fmt.align) / fmt.rate, exact: data.exact };
  }
  // Compressed (ADPCM, GSM, MP3-in-WAV...): 'fact' holds the sample count; else the average byte rate is an estimate.
  if (factSamples !== undefined && factSamples > 0) return { seconds: factSamples / fmt.rate, exact: data.exact };
  return fmt.byteRate > 0 ? { seconds: data.size / fmt.byteRate, exact: false } : undefined;
}
