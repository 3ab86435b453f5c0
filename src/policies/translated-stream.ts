// A stream whose events are translated: the vendor's events become unified chat chunks (its dialect's stream
// transform, the channel's `chunk` transform, or parsed as they are), then the client's events (its dialect's stream
// transform, or unified chunks with the usage rules of chat-events.ts).
import type { SseEvent } from '../transport/sse-parser.js';
import { after, type Transform } from '../transform/compile-transform.js';
import { sseTexts as text, type StreamEvent, type StreamTransformer } from '../transform/stream-transform.js';
import { mayCarryUsage, readUsage } from '../transform/usage-paths.js';
import { withUsage, type ChatStreamState } from './chat-events.js';

export interface TranslationSides {
  /** The vendor's dialect stream transform and the event names that end its streams cleanly. */
  vendor?: { stream: StreamTransformer; end: Set<string> };
  /** The channel's own per-chunk transform (a unified vendor with quirks). */
  chunk?: Transform;
  /** The client's dialect stream transform; absent for a unified client. */
  client?: StreamTransformer;
  clientWantsUsage: boolean;
  bindings: Record<string, unknown>;
}

type Chunk = Record<string, unknown>;

export class TranslatedStream {
  constructor(private readonly state: ChatStreamState, private readonly sides: TranslationSides) {}

  /**
   * The relay's handler: one vendor event in, the client's text out. Synchronous while the transforms are compiled
   * (the common event costs no promise); a promise where one of them went to jsonata.
   */
  readonly onEvent = (ev: SseEvent): string | undefined | Promise<string | undefined> =>
    after(this.unified(ev), (chunks) => ((chunks as Chunk[]).length ? this.toClient(chunks as Chunk[]) : undefined));

  /**
   * The client's opening events, as soon as the vendor has accepted the request (e.g. `response.created`), so the
   * client hears from the stream before the first token is translated.
   */
  async open(): Promise<string> {
    return this.sides.client ? text(await this.sides.client.open()) : '';
  }

  /** After a clean end: what the vendor's transform still had to say, then the client's closing events. */
  async finish(): Promise<string> {
    const tail = this.sides.vendor ? (await this.sides.vendor.stream.end()).map((e) => e.data as Chunk) : [];
    let out = tail.length ? await this.toClient(tail) : '';
    if (this.sides.client && !this.state.sawError) out += text(await this.sides.client.end());
    return out;
  }

  /** The client's events for a failed stream (a unified client gets chat-events' error event instead). */
  async fail(message: string, code: string): Promise<string> {
    return this.sides.client ? text(await this.sides.client.fail(message, code)) : '';
  }

  /** The answer the client's stream amounts to (its dialect's `result`), for routes that keep answers. */
  get result(): unknown {
    return this.sides.client?.result;
  }

  private unified(ev: SseEvent): Chunk[] | Promise<Chunk[]> {
    const { vendor, chunk } = this.sides;
    if (ev.data === undefined) return [];
    if (vendor) {
      if (ev.name && vendor.end.has(ev.name)) this.state.done = true;
      const data = parse(ev.data);
      if (data === undefined) return [];
      this.state.dataEvents++;
      this.readVendorUsage(ev, data);
      return after(vendor.stream.step(data, ev.name), (out) => {
        const chunks = (out as StreamEvent[]).map((e) => e.data as Chunk).filter(isObject);
        // A dialect without end events (unnamed ones) ends cleanly at its finish.
        if (!vendor.end.size && chunks.some(finishes)) this.state.done = true;
        return chunks;
      });
    }
    if (ev.data === '[DONE]') { this.state.done = true; return []; }
    const data = parse(ev.data);
    if (data === undefined) return [];
    this.state.dataEvents++;
    this.readVendorUsage(ev, data);
    return chunk ? after(chunk.evaluate(data, this.sides.bindings), chunksOf) : chunksOf(data);
  }

  /** Usage from the vendor's own event, where it is not read from the unified chunks (usage-source.ts). */
  private readVendorUsage(ev: SseEvent, data: unknown): void {
    const own = this.state.vendorUsage;
    if (own && mayCarryUsage(own, ev.name, ev.data!)) this.state.usage = readUsage(own, data, this.state.usage);
  }

  /** The client's text for unified chunks, chunk by chunk in order (each may wait for a transform that went to jsonata). */
  private toClient(chunks: Chunk[], from = 0, out = ''): string | Promise<string> {
    const { client } = this.sides;
    if (!client) return chunks.map((c) => withUsage(this.state, this.sides.clientWantsUsage, c) ?? '').join('');
    for (let i = from; i < chunks.length; i++) {
      const c = chunks[i];
      if (c.usage && typeof c.usage === 'object' && !this.state.vendorUsage) this.state.usage = readUsage(this.state.usagePaths, c, this.state.usage);
      const err = c.error as { message?: unknown; code?: unknown } | undefined;
      let events: StreamEvent[] | Promise<StreamEvent[]>;
      if (err && typeof err === 'object') {
        this.state.sawError = true;
        events = client.fail(String(err.message ?? 'upstream error'), String(err.code ?? 'upstream_error'));
      } else {
        events = client.step(c);
      }
      if (events instanceof Promise) return events.then((e) => this.toClient(chunks, i + 1, out + text(e)));
      out += text(events);
    }
    return out;
  }
}

const chunksOf = (mapped: unknown): Chunk[] => (mapped === undefined ? [] : Array.isArray(mapped) ? mapped : [mapped]).filter(isObject);

const finishes = (c: Chunk) => Array.isArray(c.choices) && c.choices.some((x) => typeof (x as { finish_reason?: unknown })?.finish_reason === 'string');

const isObject = (v: unknown): v is Chunk => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

function parse(data: string): unknown {
  try { return JSON.parse(data); } catch { return undefined; }
}
