// The server's response: every byte redacted (RedactingResponse), and the connection of a request answered before
// its body arrived closed after a bounded linger (linger.ts).
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { RedactingResponse } from '../redaction/redacting-response.js';
import { bodyStillArriving, closeAfterAnswer, type Linger } from './linger.js';

export class GatewayResponse<Req extends IncomingMessage = IncomingMessage> extends RedactingResponse<Req> {
  linger?: Linger;

  override writeHead(status: number, ...rest: unknown[]): this {
    if (this.linger && bodyStillArriving(this.req)) closeAfterAnswer(this, rest.find(isHeaders), this.linger);
    return super.writeHead(status, ...rest);
  }
}

const isHeaders = (r: unknown): r is OutgoingHttpHeaders => typeof r === 'object' && r !== null && !Array.isArray(r);
