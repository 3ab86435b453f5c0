// One live session once both sides are open: frames relayed both ways untouched, each side's sends bounded (a side
// that reads slowly pauses the other, never grows a buffer), the vendor's usage events charged as they pass, and one
// end for every way a session can stop: either side leaving, an idle or over-long session, a balance run dry, a stop.
// The client is told why in the route's error event before the gateway closes its side.
import type WebSocket from 'ws';
import type { RawData } from 'ws';
import type { Exchange } from '../pipeline/exchange.js';
import type { CompiledRealtime } from '../config/compile-realtime.js';
import type { SessionBilling } from './session-billing.js';
import { UsageMeter } from './usage-meter.js';
import type { SessionEnd } from './session-end.js';
import type { ChosenPrice } from '../billing/price-rules.js';


/** Bytes queued on one side before the other side's reads are paused, and where they resume. */
const highWater = 4 << 20;
const lowWater = 1 << 20;
/** How long a response the client left in the middle of may take to report what it cost. */
const cancelWaitMs = 5000;

const closeCodes: Record<SessionEnd, number> = {
  client_gone: 1000, upstream_closed: 1011, idle_timeout: 1000, session_expired: 1000, insufficient_user_quota: 1008,
  shutting_down: 1001, frame_too_large: 1009, unpriced_model: 1008,
};

const messages: Record<Exclude<SessionEnd, 'client_gone'>, [type: string, message: string]> = {
  upstream_closed: ['server_error', 'The vendor closed the session'],
  idle_timeout: ['invalid_request_error', 'The session was idle too long and was closed'],
  session_expired: ['invalid_request_error', 'The session reached its maximum duration and was closed'],
  insufficient_user_quota: ['insufficient_quota', 'Insufficient quota: the balance cannot cover the next response; the session was closed'],
  shutting_down: ['server_error', 'The gateway is shutting down; reconnect to continue'],
  frame_too_large: ['invalid_request_error', 'A message was larger than the gateway accepts; the session was closed'],
  unpriced_model: ['invalid_request_error', 'The session asked for a model this gateway does not price for this key; the session was closed'],
};

export class LiveSession {
  private ended?: SessionEnd;
  private last = Date.now();
  private responding = 0;
  private readonly timers: NodeJS.Timeout[] = [];
  private resolveEnd!: (e: SessionEnd) => void;
  private readonly finished = new Promise<SessionEnd>((r) => { this.resolveEnd = r; });
  private readonly meter: UsageMeter;

  constructor(
    private readonly ex: Exchange, private readonly client: WebSocket, private readonly vendor: WebSocket,
    private readonly rules: CompiledRealtime, billing: SessionBilling, price: ChosenPrice,
  ) {
    this.meter = new UsageMeter(ex, rules, billing, (why) => this.end(why), price);
  }

  /** Relays until the session ends; resolves once both sides are closed and every charge has landed. */
  async run(): Promise<SessionEnd> {
    this.pipe(this.client, this.vendor, false);
    this.pipe(this.vendor, this.client, true);
    this.client.once('close', () => this.end('client_gone'));
    this.vendor.once('close', () => this.end('upstream_closed'));
    for (const side of [this.client, this.vendor]) side.on('error', (err: Error & { code?: string }) => this.end(err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'frame_too_large' : side === this.client ? 'client_gone' : 'upstream_closed'));
    const signal = this.ex.ctx.abort.signal;
    const onStop = () => this.end(signal.reason === 'shutdown' ? 'shutting_down' : 'client_gone');
    signal.addEventListener('abort', onStop, { once: true });
    this.timers.push(setTimeout(() => this.end('session_expired'), this.rules.maxSessionMs));
    this.watchIdle();
    this.vendor.resume();
    const why = await this.finished;
    signal.removeEventListener('abort', onStop);
    await this.meter.settled();
    return why;
  }

  /** Frames from one side to the other, as they came (text stays text, binary binary); the vendor's are metered. */
  private pipe(from: WebSocket, to: WebSocket, metered: boolean): void {
    let queued = 0;
    from.on('message', (data: RawData, isBinary: boolean) => {
      this.last = Date.now();
      if (metered && !isBinary) this.inspect(data as Buffer);
      if (to.readyState !== to.OPEN) return;
      const size = (data as Buffer).length;
      queued += size;
      if (queued > highWater && !from.isPaused) from.pause();
      to.send(data, { binary: isBinary }, () => {
        queued -= size;
        if (queued < lowWater && from.isPaused && !this.ended) from.resume();
      });
    });
  }

  private inspect(frame: Buffer): void {
    const event = this.meter.read(frame);
    if (!event) return;
    if (event.type === this.rules.response?.created) this.responding++;
    if (event.type === this.rules.response?.done) this.responding = Math.max(0, this.responding - 1);
  }

  private watchIdle(): void {
    const check = () => {
      const idle = Date.now() - this.last;
      if (idle >= this.rules.idleMs) return this.end('idle_timeout');
      this.timers.push(setTimeout(check, this.rules.idleMs - idle));
    };
    this.timers.push(setTimeout(check, this.rules.idleMs));
  }

  /** The one way out: the client told why (unless it left), the vendor asked to finish what it owes, both closed. */
  private end(why: SessionEnd): void {
    if (this.ended) return;
    this.ended = why;
    for (const t of this.timers) clearTimeout(t);
    void this.close(why).finally(() => this.resolveEnd(why));
  }

  private async close(why: SessionEnd): Promise<void> {
    if (why !== 'client_gone') await this.tell(why);
    this.client.close(closeCodes[why]);
    if (why === 'client_gone' && this.responding && this.vendor.readyState === this.vendor.OPEN) await this.cancelResponse();
    this.vendor.close(why === 'upstream_closed' ? 1000 : closeCodes[why]);
    await Promise.all([closed(this.client), closed(this.vendor)]);
  }

  /** The route's error event, sent while the client's side is still open. */
  private async tell(why: Exclude<SessionEnd, 'client_gone'>): Promise<void> {
    if (this.client.readyState !== this.client.OPEN) return;
    const [type, message] = messages[why];
    const event = await this.rules.error.run({}, { type, code: why, message }).catch(() => undefined);
    if (event !== undefined) await new Promise<void>((r) => this.client.send(JSON.stringify(event), () => r()));
  }

  /**
   * The client left mid-response: the vendor is asked to stop it, and its closing event (with what it cost) is awaited
   * for a few seconds, so the tokens it made are charged as the vendor bills them.
   */
  private async cancelResponse(): Promise<void> {
    const cancel = await this.rules.response!.cancel.run({}, {}).catch(() => undefined);
    if (cancel !== undefined) this.vendor.send(JSON.stringify(cancel));
    this.vendor.resume();
    await new Promise<void>((resolve) => {
      const stop = () => { clearTimeout(timer); clearInterval(poll); resolve(); };
      const timer = setTimeout(stop, cancelWaitMs);
      const poll = setInterval(() => { if (!this.responding || this.vendor.readyState !== this.vendor.OPEN) stop(); }, 20);
    });
  }
}

/** Resolves when a socket is closed; one that will not finish its closing handshake within a second is cut. */
function closed(ws: WebSocket): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => ws.terminate(), 1000);
    ws.once('close', () => { clearTimeout(timer); resolve(); });
  });
}
