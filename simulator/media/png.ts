// Real, tiny PNGs of any size (1-bit grayscale, so even 6336x2688 deflates to a few KB) for image results, plus an IHDR reader.
import { deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const idats = new Map<string, Buffer>();

/** Own CRC-32: zlib.crc32 only exists from Node 20.15, and the engines field allows any 20.x. */
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** All-black rows, each with filter byte 0; cached per size because every result of a size shares it. */
function idat(width: number, height: number): Buffer {
  const k = `${width}x${height}`;
  let data = idats.get(k);
  if (!data) {
    data = deflateSync(Buffer.alloc(height * (1 + Math.ceil(width / 8))));
    if (idats.size >= 64) idats.clear();
    idats.set(k, data);
  }
  return data;
}

/**
 * A valid PNG of `width`×`height`. `label` goes into a tEXt chunk so different results have different
 * bytes (a gateway serving the wrong file is caught) while one result's bytes never change.
 */
export function pngBytes(width: number, height: number, label = ''): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth 1
  ihdr[9] = 0; // grayscale; compression, filter, interlace stay 0
  const parts = [SIGNATURE, chunk('IHDR', ihdr)];
  if (label) parts.push(chunk('tEXt', Buffer.from(`Comment\u0000${label}`, 'latin1')));
  parts.push(chunk('IDAT', idat(width, height)), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/** Width and height from a PNG's IHDR, or undefined for anything that is not a PNG; for tests and input checks. */
export function pngDimensions(buf: Buffer): { width: number; height: number } | undefined {
  if (buf.length < 24 || !buf.subarray(0, 8).equals(SIGNATURE) || buf.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}
