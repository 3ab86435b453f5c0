// One request on a pool, as an undici dispatch handler: it resolves with the response head on a Readable body that
// pauses the upstream socket when its reader falls behind, and rejects with an UpstreamFailure before the head.
// Written against the dispatch API rather than undici's `request()`, because the first-byte clock must start when
// the request goes out on a connected socket (`onRequestStart`) and be a plain timer (undici's ticks in half
// seconds), and because the caller's abort and the body's destroy must reach the socket.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Signal } from '../http/abort.js';
import { classify, UpstreamFailure } from './upstream-failure.js';

/** An upstream answer: its head, on the stream of its body. */
export interface UpstreamResponse extends Readable { statusCode: number; headers: IncomingHttpHeaders }

type Controller = Dispatcher.DispatchController;

export class UpstreamCall implements Dispatcher.DispatchHandler {
  private controller?: Controller;
  private timer?: NodeJS.Timeout;
  private settled = false;
  /** A failure decided before the request reached a socket: it is aborted there. */
  private pending?: UpstreamFailure;
  private body?: UpstreamBody;

  constructor(
    private readonly firstByteMs: number,
    private readonly signal: Signal | undefined,
    private readonly resolve: (r: UpstreamResponse) => void,
    private readonly reject: (e: UpstreamFailure) => void,
  ) {
    signal?.addEventListener('abort', this.onAbort);
  }

  private readonly onAbort = () => this.fail(new UpstreamFailure('network', 'client closed the connection'));

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    if (this.pending) return controller.abort(this.pending);
    // undici calls this again when it resends the request on another socket: the clock starts over.
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fail(new UpstreamFailure('timeout', `no response within ${this.firstByteMs} ms`)), this.firstByteMs);
  }

  onResponseStart(controller: Controller, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200 || this.settled) return; // 1xx: the answer is still to come
    this.settle();
    this.body = new UpstreamBody(statusCode, headers, controller);
    this.resolve(this.body);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (!this.body!.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.body!.arrived = true;
    this.body!.push(null);
  }

  onResponseError(_controller: Controller, err: Error): void {
    if (this.body) { this.body.destroy(err); return; }
    if (this.settled) return;
    this.settle();
    this.reject(classify(err));
  }

  /** Before the head: the caller hears of it at once, and the request is aborted wherever it is. */
  private fail(f: UpstreamFailure): void {
    if (this.settled) return;
    this.settle();
    this.reject(f);
    if (this.controller) this.controller.abort(f);
    else this.pending = f;
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** The body: reading resumes the socket; destroying it (a reader that gave up) aborts the request. */
class UpstreamBody extends Readable implements UpstreamResponse {
  arrived = false;

  constructor(readonly statusCode: number, readonly headers: IncomingHttpHeaders, private readonly controller: Controller) {
    super({ highWaterMark: 64 * 1024 });
  }

  override _read(): void {
    this.controller.resume();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    // Before the whole body arrived, the socket is closed rather than left mid-answer.
    if (!this.arrived && !this.controller.aborted) this.controller.abort(err ?? new Error('upstream body dropped'));
    cb(err);
  }
}
