// A live session's money. It runs for minutes and its cost is only known response by response, so it holds a
// reservation ahead of what may come next and settles it each time the vendor reports usage: the hold is settled at
// that response's charge (never above it), a response that cost more than the hold is topped up from the balance in
// an entry of its own, and the next hold is taken at once. A balance that cannot cover the next hold (or a top-up)
// ends the session. Every entry is a request-scope reservation of this process: a crash leaves at most the open hold,
// which the next start refunds (the response in progress then goes uncharged; nothing is charged twice).
import type { Gateway } from '../pipeline/gateway.js';
import type { Usage } from '../transform/usage.js';
import type { ChosenPrice } from '../billing/price-rules.js';
import { chargeOf, type ChargeLine } from '../billing/price.js';
import { classTags } from '../billing/token-classes.js';
import type { CloseTags, EntryTags } from '../store/quota-ledger.js';
import { countTokens } from '../pipeline/rate-limit.js';
import type { TokenRecord } from '../store/token-store.js';
import type { Level } from '../store/quota-ledger.js';
import { purseOf, refusalOf } from '../accounts/purse.js';
import { refundLevels, settleLevels } from '../accounts/level-moves.js';

export type Charged = 'ok' | 'exhausted';

/** A hold of the session, on every level its token spends from (src/accounts/purse.ts). */
interface SessionHold { id: string; amount: number; levels?: Level[] }

export class SessionBilling {
  private n = 0;
  private hold?: SessionHold;
  /** Why the last hold was refused (the level that could not cover it), for the client's message. */
  refusal?: string;
  /** Serializes ledger moves: usage events may arrive faster than a store answers. */
  private chain: Promise<unknown> = Promise.resolve();
  charged = 0;
  reserved = 0;
  /** What the session has cost so far, unrounded: each response pays up to the next whole unit of it, never each rounded up. */
  private exact = 0;
  uncharged = 0;
  responses = 0;
  readonly usage: Usage = { prompt_tokens: 0, completion_tokens: 0, details: {} };
  readonly lines = new Map<string, ChargeLine>();

  constructor(
    private readonly g: Gateway, private readonly token: TokenRecord, private readonly session: string,
    private readonly tags: EntryTags, private readonly holdAmount: number, private channel?: string,
  ) {}

  /** The first hold, before the vendor is dialled; false when the balance cannot cover it. */
  async open(): Promise<boolean> {
    return this.take(this.holdAmount);
  }

  onChannel(channel: string): void {
    this.channel = channel;
  }

  /** Charges one usage report at `price`, then holds again; 'exhausted' when the balance ran out on the way. */
  charge(usage: Usage, price: ChosenPrice): Promise<Charged> {
    const run = this.chain.then(() => this.chargeNow(usage, price));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Gives the open hold back (the session is over); waits for the moves in flight first. */
  async close(): Promise<void> {
    await this.chain;
    const h = this.hold;
    this.hold = undefined;
    if (h?.levels) await refundLevels(this.g.store.quota, h.levels, h.amount, { channel: this.channel }).catch((err) => this.g.log.error({ err, session: this.session }, 'refund failed'));
  }

  private async chargeNow(usage: Usage, price: ChosenPrice): Promise<Charged> {
    const c = chargeOf(price, usage, { units: 0 });
    this.note(usage, c.lines);
    countTokens(this.g, this.token, usage);
    for (const l of c.lines) this.exact += l.units;
    let owed = Math.max(0, Math.ceil(this.exact - 1e-9) - this.charged - this.uncharged);
    const tags = this.closeTags(usage, c.classes);
    const h = this.hold;
    this.hold = undefined;
    if (h) {
      const paid = Math.min(owed, h.amount);
      await this.settle(h, paid, tags);
      owed -= paid;
    }
    // More than the hold: the rest from the balance, in an entry of its own (reserved and settled at once).
    if (owed > 0) {
      const topUp: SessionHold = { id: this.nextId(), amount: owed };
      if (!(await this.reserve(topUp))) {
        this.uncharged += owed;
        return 'exhausted';
      }
      await this.settle(topUp, owed, tags);
    }
    return (await this.take(this.holdAmount)) ? 'ok' : 'exhausted';
  }

  private async take(amount: number): Promise<boolean> {
    const h: SessionHold = { id: this.nextId(), amount };
    if (!(await this.reserve(h))) return false;
    this.hold = h;
    return true;
  }

  private async reserve(h: SessionHold): Promise<boolean> {
    const purse = await purseOf(this.g.accounts, this.token, h.id, Date.now());
    const refused = await this.g.store.quota.reserveLevels(purse.levels, h.amount, 'request', this.tags);
    if (refused >= 0) {
      this.refusal = refusalOf(purse.names[refused], h.amount);
      return false;
    }
    h.levels = purse.levels;
    this.reserved += h.amount;
    return true;
  }

  private async settle(h: SessionHold, actual: number, tags: CloseTags): Promise<void> {
    const s = await settleLevels(this.g.store.quota, h.levels!, h.amount, actual, tags);
    this.charged += s.charged;
  }

  private nextId(): string {
    return `${this.session}:${++this.n}`;
  }

  private closeTags(usage: Usage, classes: ReturnType<typeof chargeOf>['classes']): CloseTags {
    const t: CloseTags = { channel: this.channel, prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens };
    if (classes) Object.assign(t, classTags(classes));
    return t;
  }

  /** The session's usage and lines so far, for its log line and record. */
  private note(usage: Usage, lines: ChargeLine[]): void {
    this.responses++;
    this.usage.prompt_tokens += usage.prompt_tokens;
    this.usage.completion_tokens += usage.completion_tokens;
    if (usage.seconds) this.usage.seconds = (this.usage.seconds ?? 0) + usage.seconds;
    for (const [k, v] of Object.entries(usage.details ?? {})) this.usage.details![k] = (this.usage.details![k] ?? 0) + v;
    for (const l of lines) {
      const prev = this.lines.get(l.item);
      this.lines.set(l.item, prev ? { ...prev, quantity: prev.quantity + l.quantity, units: prev.units + l.units } : { ...l });
    }
  }
}
