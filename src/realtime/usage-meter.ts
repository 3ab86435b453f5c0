// Reads what a live session costs from the vendor's events as they pass: most frames (audio deltas) are told apart by
// a look at their first bytes and never parsed; an event that carries usage is parsed and charged at the session
// model's price, or at the price of the model the session itself names for that work (a transcription model, read
// from the session events), which must be one this key may use and the gateway prices.
import type { Exchange } from '../pipeline/exchange.js';
import type { CompiledRealtime } from '../config/compile-realtime.js';
import type { ChosenPrice } from '../billing/price-rules.js';
import { choosePrice } from '../billing/choose-price.js';
import { readUsage } from '../transform/usage-paths.js';
import { valueAt } from '../http/body-numbers.js';
import type { SessionBilling } from './session-billing.js';
import type { SessionEnd } from './session-end.js';

export interface SeenEvent { type: string }

/** A top-level `"type":"…"` in the first bytes (OpenAI writes it first); anything else is parsed to be sure. */
const headType = /^\s*\{\s*"type"\s*:\s*"([^"\\]{1,128})"/;

export class UsageMeter {
  private readonly charging: Promise<unknown>[] = [];
  /** Per charged event type with `model_at`: the model the session last named there. */
  private readonly named = new Map<string, string>();
  private readonly prices = new Map<string, ChosenPrice>();

  constructor(
    private readonly ex: Exchange, private readonly rules: CompiledRealtime, private readonly billing: SessionBilling,
    private readonly end: (why: SessionEnd) => void, private readonly price: ChosenPrice,
  ) {}

  /** The event's type, after charging it or noting the session's models where it matters; undefined when it has none. */
  read(frame: Buffer): SeenEvent | undefined {
    const head = headType.exec(frame.subarray(0, 160).toString('latin1'));
    let type = head?.[1];
    if (type && !this.rules.charges.has(type) && !this.rules.sessionEvents.has(type)) return { type };
    const event = parse(frame);
    type = typeof event?.type === 'string' ? event.type : undefined;
    if (!event || !type) return undefined;
    if (this.rules.sessionEvents.has(type)) this.noteSession(event.session);
    const charge = this.rules.charges.get(type);
    if (charge) this.charge(type, charge, event);
    return { type };
  }

  /** Waits for the charges still being written. */
  async settled(): Promise<void> {
    await Promise.all(this.charging);
  }

  private charge(type: string, rule: { usage: string; modelAt?: string[] }, event: Record<string, unknown>): void {
    const paths = this.ex.g.runtime.usage.get(rule.usage);
    const usage = paths && readUsage(paths, event);
    if (!usage) return;
    const price = rule.modelAt ? this.priceOf(this.named.get(type)) : this.price;
    if (!price) {
      this.ex.g.log.warn({ req_id: this.ex.ctx.id, event: type, model: this.named.get(type) }, 'realtime usage for a model that is not priced here; session ended');
      return this.end('unpriced_model');
    }
    this.charging.push(this.billing.charge(usage, price).then((r) => { if (r === 'exhausted') this.end('insufficient_user_quota'); }, (err) => {
      this.ex.g.log.error({ err, req_id: this.ex.ctx.id }, 'realtime charge failed; session ended');
      this.end('insufficient_user_quota');
    }));
  }

  /** The models the session names for priced work; one this key may not use, or that is not priced, ends it. */
  private noteSession(session: unknown): void {
    if (!session || typeof session !== 'object') return;
    for (const [type, rule] of this.rules.charges) {
      if (!rule.modelAt) continue;
      const model = valueAt(session as Record<string, unknown>, rule.modelAt);
      if (typeof model !== 'string' || !model) continue;
      this.named.set(type, model);
      if (!this.priceOf(model)) this.end('unpriced_model');
    }
  }

  private priceOf(model: string | undefined): ChosenPrice | undefined {
    if (!model) return undefined;
    const known = this.prices.get(model);
    if (known) return known;
    const token = this.ex.ctx.token;
    const compiled = this.ex.g.runtime.prices.get(model);
    if (!compiled || (token?.models && !token.models.includes(model))) return undefined;
    const chosen = choosePrice(compiled, {});
    this.prices.set(model, chosen);
    return chosen;
  }
}

function parse(frame: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(frame.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
