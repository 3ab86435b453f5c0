// The `imageLimits` schema keyword: checks Base64 data-URI images (format, bytes, pixels, aspect) from their headers.
import type { DataValidateFunction, KeywordDefinition } from 'ajv/dist/types/index.js';

export interface ImageLimits { formats?: string[]; min_width?: number; min_height?: number; max_ratio?: number; max_bytes?: number }

const dataUri = /^data:image\/([a-z0-9.+-]+);base64,/i;

function problem(limits: ImageLimits, value: string): string | undefined {
  if (/^https?:\/\//i.test(value)) return undefined; // URLs are fetched by the vendor; only inline data can be read here
  const m = dataUri.exec(value);
  if (!m) return 'must be an http(s) URL or a data URI of the form data:image/<type>;base64,<data>';
  const type = m[1].toLowerCase() === 'jpg' ? 'jpeg' : m[1].toLowerCase();
  const formats = (limits.formats ?? ['png', 'jpeg', 'webp']).map((f) => (f === 'jpg' ? 'jpeg' : f));
  if (!formats.includes(type)) return `has format ${m[1]}; allowed: ${limits.formats?.join(', ') ?? formats.join(', ')}`;
  const b64 = value.slice(m[0].length);
  const bytes = Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
  if (limits.max_bytes && bytes > limits.max_bytes) return `is ${bytes} bytes; at most ${limits.max_bytes} allowed`;
  // The header is enough for the size: decode only the first 64 KiB of Base64.
  const head = Buffer.from(b64.slice(0, 87_384), 'base64');
  const dims = readDimensions(head);
  if (!dims) return `is not a readable ${type} image`;
  const { width, height } = dims;
  if ((limits.min_width && width < limits.min_width) || (limits.min_height && height < limits.min_height)) {
    return `is ${width}x${height} pixels; at least ${limits.min_width ?? 0}x${limits.min_height ?? 0} required`;
  }
  if (limits.max_ratio && Math.max(width / height, height / width) > limits.max_ratio) {
    return `has aspect ratio ${width}:${height}; it must lie within 1:${limits.max_ratio} and ${limits.max_ratio}:1`;
  }
  return undefined;
}

/** Width and height from a PNG, JPEG or WebP header. */
export function readDimensions(b: Buffer): { width: number; height: number } | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegDimensions(b);
  if (b.length >= 30 && b.toString('ascii', 0, 4) === 'RIFF' && b.toString('ascii', 8, 12) === 'WEBP') return webpDimensions(b);
  return undefined;
}

function jpegDimensions(b: Buffer): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    const len = b.readUInt16BE(i + 2);
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    i += 2 + len;
  }
  return undefined;
}

function webpDimensions(b: Buffer): { width: number; height: number } | undefined {
  const chunk = b.toString('ascii', 12, 16);
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  return undefined;
}

export const imageLimitsKeyword: KeywordDefinition = {
  keyword: 'imageLimits',
  type: 'string',
  schemaType: 'object',
  errors: true,
  compile(limits: ImageLimits) {
    const fn: DataValidateFunction = (data: unknown) => {
      const why = typeof data === 'string' ? problem(limits, data) : undefined;
      fn.errors = why ? [{ keyword: 'imageLimits', message: why, params: {} }] : undefined;
      return !why;
    };
    return fn;
  },
};
