// Minimal real image headers (PNG, JPEG, WebP) of any size, as data URIs, for limit tests.
export function pngUri(width: number, height: number): string {
  const b = Buffer.alloc(33);
  b.writeUInt32BE(0x89504e47, 0); b.writeUInt32BE(0x0d0a1a0a, 4); b.writeUInt32BE(13, 8); b.write('IHDR', 12);
  b.writeUInt32BE(width, 16); b.writeUInt32BE(height, 20); b[24] = 8; b[25] = 6;
  return `data:image/png;base64,${b.toString('base64')}`;
}

export function jpegUri(width: number, height: number, type = 'jpeg'): string {
  const b = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 255, width >> 8, width & 255, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  return `data:image/${type};base64,${b.toString('base64')}`;
}

export function gifUri(): string {
  return `data:image/gif;base64,${Buffer.from('GIF89a\x10\x00\x10\x00').toString('base64')}`;
}
