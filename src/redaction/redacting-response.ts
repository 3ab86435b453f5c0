// The one place every response byte passes on its way to a client: text bodies (JSON, SSE, plain text, XML) go
// through the redactor, whatever produced them (a gateway answer, a relayed vendor error, a piped pass-through
// body); binary bodies (video, images) pass untouched. A streamed body holds back only the few trailing bytes that
// might start a secret, until the next chunk or the end shows whether they do. Masks keep the byte length, so a
// Content-Length set before stays true.
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import type { Redactor } from './redactor.js';

const textual = /json|^text\/|event-stream|xml|javascript|x-www-form-urlencoded/i;

type Chunk = string | Buffer | Uint8Array;
type Callback = (err?: Error | null) => void;

export class RedactingResponse<Req extends IncomingMessage = IncomingMessage> extends ServerResponse<Req> {
  redactor?: Redactor;
  private redact?: boolean;
  private carry?: string | Buffer;

  override writeHead(status: number, ...rest: unknown[]): this {
    const headers = rest.find((r): r is OutgoingHttpHeaders => typeof r === 'object' && r !== null && !Array.isArray(r));
    this.decide(headers?.['content-type'] ?? this.getHeader('content-type'));
    return super.writeHead(status, ...(rest as [OutgoingHttpHeaders]));
  }

  override write(chunk: Chunk, encoding?: BufferEncoding | Callback, cb?: Callback): boolean {
    const done = typeof encoding === 'function' ? encoding : cb;
    if (!this.isRedacting() || chunk === undefined || chunk === null) return super.write(chunk, encoding as BufferEncoding, cb as Callback);
    const r = this.redactor!;
    if (typeof chunk === 'string' && typeof encoding !== 'string') {
      const masked = r.text(this.takeCarryText() + chunk);
      const keep = r.partialTail(masked);
      this.carry = keep ? masked.slice(masked.length - keep) : undefined;
      return super.write(keep ? masked.slice(0, masked.length - keep) : masked, done);
    }
    const masked = r.bytes(this.withCarry(toBuffer(chunk, encoding)));
    const keep = r.partialTailBytes(masked);
    this.carry = keep ? masked.subarray(masked.length - keep) : undefined;
    return super.write(keep ? masked.subarray(0, masked.length - keep) : masked, done);
  }

  override end(chunk?: Chunk | Callback, encoding?: BufferEncoding | Callback, cb?: Callback): this {
    if (!this.isRedacting() || typeof chunk === 'function' || chunk === undefined || chunk === null) {
      if (this.carry !== undefined) super.write(this.takeCarryBytes());
      return super.end(chunk as never, encoding as never, cb as never);
    }
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof chunk === 'string' && typeof encoding !== 'string') return super.end(this.redactor!.text(this.takeCarryText() + chunk), done);
    return super.end(this.redactor!.bytes(this.withCarry(toBuffer(chunk, encoding))), done);
  }

  private isRedacting(): boolean {
    if (this.redact === undefined) this.decide(this.getHeader('content-type'));
    return this.redact === true;
  }

  private decide(type: unknown): void {
    this.redact = Boolean(this.redactor?.active) && (type === undefined || textual.test(String(type)));
  }

  private takeCarryText(): string {
    const c = this.carry;
    this.carry = undefined;
    return c === undefined ? '' : c.toString();
  }

  private withCarry(b: Buffer): Buffer {
    return this.carry === undefined ? b : Buffer.concat([this.takeCarryBytes(), b]);
  }

  private takeCarryBytes(): Buffer {
    const c = this.carry;
    this.carry = undefined;
    return c === undefined ? Buffer.alloc(0) : typeof c === 'string' ? Buffer.from(c) : c;
  }
}

function toBuffer(chunk: Chunk, encoding?: BufferEncoding | Callback): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8');
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
