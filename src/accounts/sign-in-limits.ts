// Sign-in attempts, counted in the store's shared rate windows so the bound holds across every instance: per account
// (however many addresses guess at it) and per client address (however many accounts it tries). Only failures count:
// an attempt takes a unit from each window before the password is checked, and one that succeeds gives them back.
import { windowSpec, type WindowOp } from '../store/rate-window.js';
import type { Store } from '../store/store.js';
import { digestOf } from './secrets.js';

export const signInLimits = { windowMs: 15 * 60_000, perAccount: 10, perAddress: 50 };

export interface Attempt { keys: string[]; bucket: number }
export type Gate = { attempt: Attempt } | { retryAfterS: number };

export class SignInLimits {
  constructor(private readonly store: Store, private readonly limits = signInLimits) {}

  /** `account`: the name tried (any case counts as one); absent where no account is named (an invite). */
  async take(address: string, account?: string): Promise<Gate> {
    const spec = windowSpec(this.limits.windowMs);
    const windows = [{ key: `signin:addr:${address}`, limit: this.limits.perAddress }];
    if (account !== undefined) windows.push({ key: `signin:acct:${digestOf(account.toLowerCase())}`, limit: this.limits.perAccount });
    const ops: WindowOp[] = windows.map((w) => ({ ...w, spec, give: 0, giveBucket: 0, add: 0, take: 1 }));
    const results = await this.store.rates.slide(ops);
    const keys = windows.map((w) => w.key);
    if (results.every((r) => r.granted === 1)) return { attempt: { keys, bucket: results[0].bucket } };
    // A refused attempt is no attempt: the windows that granted one get it back.
    const granted = keys.filter((_, i) => results[i].granted === 1);
    if (granted.length) await this.forgive({ keys: granted, bucket: results[0].bucket });
    const wait = Math.max(...results.filter((r) => r.granted === 0).map((r) => r.retryMs));
    return { retryAfterS: Math.max(1, Math.ceil(wait / 1000)) };
  }

  async forgive(a: Attempt): Promise<void> {
    const spec = windowSpec(this.limits.windowMs);
    await this.store.rates.slide(a.keys.map((key) => ({ key, spec, give: 1, giveBucket: a.bucket, add: 0, take: 0, limit: 0 })));
  }
}
