// The lines of a spooled upload, read as a stream: one line in memory at a time, and none longer than `maxBytes`.
import { createReadStream } from 'node:fs';
import { GatewayError } from '../http/errors.js';

export interface Line { n: number; raw: Buffer }

/** Yields each line (1-based, without its `\n` or `\r\n`); throws invalid_request (400) at the first one over `maxBytes`. */
export async function* readLines(path: string, maxBytes: number): AsyncGenerator<Line> {
  let parts: Buffer[] = [];
  let held = 0;
  let n = 0;
  const line = (tail: Buffer): Line => {
    const whole = parts.length ? Buffer.concat([...parts, tail]) : tail;
    parts = [];
    held = 0;
    return { n: ++n, raw: whole.at(-1) === 0x0d ? whole.subarray(0, -1) : whole };
  };
  const tooLong = () => new GatewayError('invalid_request', `Line ${n + 1} of the file is longer than ${maxBytes} bytes`);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      if (held + nl - from > maxBytes) throw tooLong();
      yield line(chunk.subarray(from, nl));
      from = nl + 1;
    }
    if (from < chunk.length) {
      held += chunk.length - from;
      if (held > maxBytes) throw tooLong();
      parts.push(chunk.subarray(from));
    }
  }
  if (held) yield line(Buffer.alloc(0));
}
