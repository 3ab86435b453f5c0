#!/usr/bin/env node
// `node scripts/sample-png.mjs FILE [WIDTH] [HEIGHT]`: writes a plain PNG (a solid colour, default 1280×720) to use
// as an input in the docs' examples (image edits, reference images), so they need no file from elsewhere.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const [file, w = '1280', h = '720'] = process.argv.slice(2);
if (!file) { console.error('usage: node scripts/sample-png.mjs FILE [WIDTH] [HEIGHT]'); process.exit(2); }
const width = Number(w), height = Number(h);

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => { let c = 0xffffffff; for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };

function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

const header = Buffer.alloc(13);
header.writeUInt32BE(width, 0); header.writeUInt32BE(height, 4);
header[8] = 8; header[9] = 2; // 8-bit RGB
const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [48, 128, 192]).flat())]);
const pixels = Buffer.concat(Array.from({ length: height }, () => row));
writeFileSync(file, Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]));
console.error(`wrote ${file} (${width}×${height} PNG)`);
