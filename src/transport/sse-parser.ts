// Splits an upstream byte stream into SSE events, independent of how TCP chunked it, with a bounded buffer.
import { StringDecoder } from 'node:string_decoder';

export interface SseEvent {
  /** Joined `data:` lines, or undefined for events without data (comments, bare `event:`). */
  data?: string;
  /** The event as received, used to forward comments and named events unchanged. */
  raw: string;
  /** The `event:` field, when the event has one. */
  name?: string;
}

export class SseTooLarge extends Error {}

export class SseParser {
  private buf = '';
  private pendingCr = '';
  private readonly decoder = new StringDecoder('utf8');
  constructor(private readonly maxEventBytes: number) {}

  /** Events completed by this chunk; throws SseTooLarge when one event outgrows the bound. */
  push(chunk: Buffer): SseEvent[] {
    let text = this.pendingCr + this.decoder.write(chunk);
    this.pendingCr = '';
    if (text.includes('\r')) {
      // A CR at the very end may be the first half of a CRLF the next read completes: wait for it.
      if (text.endsWith('\r')) { this.pendingCr = '\r'; text = text.slice(0, -1); }
      text = text.replace(/\r\n?/g, '\n');
    }
    this.buf += text;
    const out: SseEvent[] = [];
    let start = 0;
    for (let end = this.buf.indexOf('\n\n'); end !== -1; end = this.buf.indexOf('\n\n', start)) {
      const raw = this.buf.slice(start, end);
      start = end + 2;
      if (raw.length) out.push(parseEvent(raw));
    }
    this.buf = start ? this.buf.slice(start) : this.buf;
    if (this.buf.length > this.maxEventBytes) throw new SseTooLarge(`SSE event larger than ${this.maxEventBytes} bytes`);
    return out;
  }

  /** A trailing event the upstream did not terminate with a blank line. */
  flush(): SseEvent | undefined {
    const rest = (this.buf + (this.pendingCr ? '\n' : '') + this.decoder.end()).trim();
    this.pendingCr = '';
    this.buf = '';
    return rest ? parseEvent(rest) : undefined;
  }
}

function parseEvent(raw: string): SseEvent {
  // Fast path: the common single-line `data: ...` event.
  if (raw.startsWith('data:') && !raw.includes('\n')) {
    return { raw, data: raw.charCodeAt(5) === 32 ? raw.slice(6) : raw.slice(5) };
  }
  let data: string | undefined;
  let name: string | undefined;
  for (const line of raw.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(line.charCodeAt(6) === 32 ? 7 : 6);
    if (!line.startsWith('data:')) continue;
    const v = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
    data = data === undefined ? v : `${data}\n${v}`;
  }
  return { raw, data, name };
}
