// The three checksums real audio containers carry: FLAC's CRC-8 (frame header) and CRC-16 (whole frame), and Ogg's
// CRC-32 (each page). Decoders reject a frame or page whose checksum is wrong, so the simulator's files must get them right.

function table(poly: number, bits: 8 | 16 | 32): Uint32Array {
  const top = 2 ** (bits - 1);
  const mask = bits === 32 ? 0xffffffff : (1 << bits) - 1;
  return Uint32Array.from({ length: 256 }, (_, i) => {
    let r = (i * 2 ** (bits - 8)) >>> 0;
    for (let k = 0; k < 8; k++) r = (r & top ? ((r * 2) ^ poly) : r * 2) & mask;
    return r >>> 0;
  });
}

const CRC8 = table(0x07, 8);
const CRC16 = table(0x8005, 16);
const CRC32 = table(0x04c11db7, 32);

/** FLAC frame-header CRC-8 (polynomial x^8+x^2+x+1, init 0, not reflected). */
export function crc8(bytes: Uint8Array): number {
  let c = 0;
  for (const b of bytes) c = CRC8[c ^ b];
  return c;
}

/** FLAC frame-footer CRC-16 (polynomial 0x8005, init 0, not reflected). */
export function crc16(bytes: Uint8Array): number {
  let c = 0;
  for (const b of bytes) c = ((c << 8) & 0xffff) ^ CRC16[((c >> 8) ^ b) & 0xff];
  return c;
}

/** Ogg page CRC-32 (polynomial 0x04c11db7, init 0, not reflected, no final xor). */
export function oggCrc32(bytes: Uint8Array): number {
  let c = 0;
  for (const b of bytes) c = ((c << 8) ^ CRC32[((c >>> 24) ^ b) & 0xff]) >>> 0;
  return c >>> 0;
}
