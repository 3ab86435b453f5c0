// A finished task or topup as the request log keeps it (schemas/api/request-record.response.json), built from what the
// gateway already holds at the end (the task's record, the topup). A request's record goes straight to its row and its
// access line (src/finished-request.ts), with the usage summary from here.
import type { Usage } from '../transform/usage.js';
import type { TaskRecord } from '../records/task-record.js';
import type { Charge } from '../billing/price.js';
import { classTags, tokenClasses, type TokenCounts } from '../billing/token-classes.js';
import type { RequestRecord } from './log-store.js';

/**
 * A task that ends now: from its submit to its end, with what it was charged and what its vendor said it charged. Its
 * time is now in milliseconds (the task's own times are whole seconds: its end would sort before its submit).
 */
export function taskRecord(t: TaskRecord, end = Date.now()): RequestRecord {
  const q = t.quota;
  const charge = q.price && q.lines ? { total: q.charged ?? 0, lines: q.lines, chose: q.price.chose } : undefined;
  return {
    id: t.id, kind: 'task', at: end, started_at: t.created_at * 1000,
    token: t.owner.token, user: t.owner.user, group: t.group, route: t.route, method: null, path: null,
    model: t.model, served_model: t.upstream_model, channel: t.channel, attempts: [],
    status: t.status === 'completed' ? 200 : null, error_code: t.error?.code ?? null, outcome: t.status, reason: null,
    usage: q.usage ? usageSummary(q.usage) : null, usage_estimated: null, units: q.seconds ?? q.units ?? null,
    task: null, reserved: q.reserved, charged: q.charged ?? 0, uncharged: null, vendor_charged: q.vendor_charged ?? null, ...chargeOf(charge),
    latency_ms: end - t.created_at * 1000, first_byte_ms: null, client: null,
  };
}

/** Money in: who topped up which token, by how much. */
export function topupRecord(ref: string, token: { id: string | null; user: string; group: string }, amount: number, source: string): RequestRecord {
  return {
    id: ref, kind: 'topup', at: Date.now(), started_at: null, token: token.id, user: token.user, group: token.group, route: source,
    method: null, path: null, model: null, served_model: null, channel: null, attempts: [], status: null, error_code: null,
    outcome: null, reason: null, usage: null, usage_estimated: null, units: null, task: null, reserved: null, charged: amount,
    uncharged: null, vendor_charged: null, charge_lines: [], tier: null, price: null, latency_ms: null, first_byte_ms: null, client: null,
  };
}

/** The billed counts, with the token classes where the vendor reported parts, and the seconds a task's vendor billed. */
export function usageSummary(u: Usage, classes?: TokenCounts): NonNullable<RequestRecord['usage']> {
  const out: NonNullable<RequestRecord['usage']> = { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens };
  if (u.details) {
    const tags = classTags(classes ?? tokenClasses(u));
    for (const k of Object.keys(tags) as (keyof typeof tags)[]) if (tags[k]) out[k] = tags[k];
  }
  if (u.seconds !== undefined) out.seconds = u.seconds;
  return out;
}

function chargeOf(c: Pick<Charge, 'lines' | 'tier' | 'chose'> | undefined): Pick<RequestRecord, 'charge_lines' | 'tier' | 'price'> {
  return {
    charge_lines: c?.lines.map((l) => [l.item, l.quantity, round(l.rate, 6), round(l.units, 6)] as [string, number, number, number]) ?? [],
    tier: c?.tier ?? null, price: c?.chose ?? null,
  };
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
