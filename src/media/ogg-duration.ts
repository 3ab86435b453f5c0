// Ogg Opus / Ogg Vorbis: the granule position (a sample count) of the stream's last page, read from the
// last 64 KB. Opus counts at 48 kHz whatever the input rate and starts after `pre-skip` priming samples.
import { MAX_READ, fourcc, type ByteSource, type Duration } from './byte-source.js';

const MAX_CANDIDATES = 64; // CRC checks per tail; a tail stuffed with fake "OggS" must not cost seconds of CPU
const CRC = new Uint32Array(256).map((_, i) => {
  let r = i << 24;
  for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
  return r >>> 0;
});

/** The page at buf[i] if its header fits and its CRC checks out (a stray "OggS" inside packet data will not). */
function pageAt(buf: Buffer, i: number) {
  if (fourcc(buf, i) !== 'OggS' || i + 27 > buf.length || buf[i + 4] !== 0) return undefined;
  const bodyAt = i + 27 + buf[i + 26];
  if (bodyAt > buf.length) return undefined;
  let end = bodyAt;
  for (let s = i + 27; s < bodyAt; s++) end += buf[s]; // the segment table's lacing values sum to the body size
  if (end > buf.length) return undefined; // cut off, e.g. the last page of a truncated upload
  let crc = 0; // CRC-32, polynomial 0x04C11DB7, computed with the CRC field (bytes 22..25) as zeros
  for (let k = i; k < end; k++) crc = ((crc << 8) ^ CRC[((crc >>> 24) ^ (k - i >= 22 && k - i < 26 ? 0 : buf[k])) & 0xff]) >>> 0;
  if (crc !== buf.readUInt32LE(i + 22)) return undefined;
  return { bos: (buf[i + 5] & 2) !== 0, granule: buf.readBigInt64LE(i + 6), serial: buf.readUInt32LE(i + 14), bodyAt, end };
}

export async function oggDuration(src: ByteSource): Promise<Duration | undefined> {
  // The first pages are the streams' identification headers (one per stream, each alone on its page);
  // pick the first Opus or Vorbis one, so an Ogg with a video stream too still finds its audio.
  const head = await src.read(0, 8192);
  let codec: { serial: number; rate: number; preSkip: number } | undefined;
  let p = pageAt(head, 0);
  while (p?.bos && !codec) { // each page ends past its start, so this walk only moves forward
    const b = head.subarray(p.bodyAt, p.end);
    if (fourcc(b, 0) === 'Opus' && fourcc(b, 4) === 'Head' && b.length >= 19) {
      codec = { serial: p.serial, rate: 48000, preSkip: b.readUInt16LE(10) };
    } else if (b.toString('latin1', 0, 7) === '\x01vorbis' && b.length >= 16 && b.readUInt32LE(12) > 0) {
      codec = { serial: p.serial, rate: b.readUInt32LE(12), preSkip: 0 };
    }
    p = pageAt(head, p.end);
  }
  if (!codec) return undefined;
  const tail = await src.read(Math.max(0, src.size - MAX_READ), MAX_READ); // a page is at most 65,307 bytes
  let i = tail.lastIndexOf('OggS');
  for (let n = 0; i >= 0 && n < MAX_CANDIDATES; i = i > 0 ? tail.lastIndexOf('OggS', i - 1) : -1) {
    // Cheap checks first, then the CRC: this stream's page, with audio (header pages say 0; -1 = no packet ends here).
    if (i + 27 > tail.length || tail.readUInt32LE(i + 14) !== codec.serial || tail.readBigInt64LE(i + 6) <= 0n) continue;
    n++;
    const p = pageAt(tail, i);
    if (!p) continue;
    const samples = Number(p.granule) - codec.preSkip;
    return { seconds: Math.max(0, samples) / codec.rate, exact: true };
  }
  return undefined;
}
