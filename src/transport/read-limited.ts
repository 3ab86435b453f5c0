// Reads a whole upstream body for the non-streaming paths, refusing to hold more than a bound or to wait longer
// than `idleMs` between two chunks.
import type { Readable } from 'node:stream';

export class BodyTooLarge extends Error {}

export function readLimited(stream: Readable, maxBytes: number, idleMs?: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // One timer per body, pushed back only when it fires early: re-arming it per chunk would cost more than the chunk.
    let lastData = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      const idle = Date.now() - lastData;
      if (idle < idleMs!) timer = setTimeout(check, idleMs! - idle);
      else stream.destroy(new Error(`upstream body idle for ${idleMs} ms`));
    };
    if (idleMs) timer = setTimeout(check, idleMs);
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) { clearTimeout(timer); stream.destroy(); reject(new BodyTooLarge(`upstream body exceeds ${maxBytes} bytes`)); return; }
      chunks.push(c);
      lastData = Date.now();
    });
    stream.once('end', () => { clearTimeout(timer); resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)); });
    stream.once('error', (e) => { clearTimeout(timer); reject(e); });
    // After a clean end 'close' follows too: an Error (with its stack) is made only when the body really was cut.
    stream.once('close', () => { clearTimeout(timer); if (!stream.readableEnded) reject(new Error('upstream body ended early')); });
  });
}
