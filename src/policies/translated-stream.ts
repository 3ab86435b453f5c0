// A stream whose events are translated: the vendor's events become unified chat chunks (its dialect's stream
// transform, the channel's `chunk` transform, or parsed as they are), then the client's events (its dialect's stream
// transform, or unified chunks with the usage rules of chat-events.ts).
import type { SseEvent } from '../transport/sse-parser.js';
import type { Transform } from '../transform/compile-transform.js';
import { sseTexts as text, type StreamTransformer } from '../transform/stream-transform.js';
import type { Usage } from '../pipeline/context.js';
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

  /** The relay's handler: one vendor event in, the client's text out. */
  readonly onEvent = async (ev: SseEvent): Promise<string | undefined> => {
    const chunks = await this.unified(ev);
    return chunks.length ? this.toClient(chunks) : undefined;
  };

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

  private async unified(ev: SseEvent): Promise<Chunk[]> {
    const { vendor, chunk } = this.sides;
    if (ev.data === undefined) return [];
    if (vendor) {
      if (ev.name && vendor.end.has(ev.name)) this.state.done = true;
      const data = parse(ev.data);
      if (data === undefined) return [];
      this.state.dataEvents++;
      return (await vendor.stream.push(data, ev.name)).map((e) => e.data as Chunk).filter(isObject);
    }
    if (ev.data === '[DONE]') { this.state.done = true; return []; }
    const data = parse(ev.data);
    if (data === undefined) return [];
    this.state.dataEvents++;
    const mapped = chunk ? await chunk.run(data, this.sides.bindings) : data;
    return (mapped === undefined ? [] : Array.isArray(mapped) ? mapped : [mapped]).filter(isObject);
  }

  private async toClient(chunks: Chunk[]): Promise<string> {
    const { client } = this.sides;
    if (!client) return chunks.map((c) => withUsage(this.state, this.sides.clientWantsUsage, c) ?? '').join('');
    let out = '';
    for (const c of chunks) {
      if (c.usage && typeof c.usage === 'object') this.state.usage = c.usage as Usage;
      const err = c.error as { message?: unknown; code?: unknown } | undefined;
      if (err && typeof err === 'object') {
        this.state.sawError = true;
        out += text(await client.fail(String(err.message ?? 'upstream error'), String(err.code ?? 'upstream_error')));
        continue;
      }
      out += text(await client.push(c));
    }
    return out;
  }
}

const isObject = (v: unknown): v is Chunk => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

function parse(data: string): unknown {
  try { return JSON.parse(data); } catch { return undefined; }
}
