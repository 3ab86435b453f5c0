// Reads a whole upstream body for the non-streaming paths, refusing to hold more than a bound.
import type { Readable } from 'node:stream';

export class BodyTooLarge extends Error {}

export function readLimited(stream: Readable, maxBytes: number, idleMs?: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      if (!idleMs) return;
      clearTimeout(timer);
      timer = setTimeout(() => stream.destroy(new Error(`upstream body idle for ${idleMs} ms`)), idleMs);
    };
    arm();
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) { clearTimeout(timer); stream.destroy(); reject(new BodyTooLarge(`upstream body exceeds ${maxBytes} bytes`)); return; }
      chunks.push(c);
      arm();
    });
    stream.once('end', () => { clearTimeout(timer); resolve(Buffer.concat(chunks, size)); });
    stream.once('error', (e) => { clearTimeout(timer); reject(e); });
    stream.once('close', () => { clearTimeout(timer); reject(new Error('upstream body ended early')); });
  });
}
