// FLAC: STREAMINFO (always the first metadata block) states the total sample count and the sample rate.
import { fourcc, skipId3v2, type ByteSource, type Duration } from './byte-source.js';

export async function flacDuration(src: ByteSource): Promise<Duration | undefined> {
  const at = await skipId3v2(src); // some taggers put ID3v2 in front of "fLaC" although the format has its own tags
  const b = await src.read(at, 4 + 4 + 34); // magic, block header, STREAMINFO body
  if (b.length < 42 || fourcc(b, 0) !== 'fLaC' || (b[4] & 0x7f) !== 0 || b.readUIntBE(5, 3) < 34) return undefined;
  const s = b.subarray(8);
  // Bytes 10..17 pack: sample rate (20 bits), channels-1 (3), bits-1 (5), total samples (36).
  const rate = (s[10] << 12) | (s[11] << 4) | (s[12] >> 4);
  const total = (s[13] & 0x0f) * 2 ** 32 + s.readUInt32BE(14);
  if (rate === 0 || total === 0) return undefined; // 0 samples means "unknown" (e.g. a stream encoded from a pipe)
  return { seconds: total / rate, exact: true };
}
