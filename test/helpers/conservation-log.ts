// The request log against the ledger after a conservation run: the log never disagrees with the money, and it lost
// only what the docs say a kill -9 may lose (docs/operators/request-log.md).
//   - every record's charge is the ledger's charge for that request or task;
//   - every request or task the ledger closed has its record, except one a crash interrupted: closed in the moments
//     before a kill (its record was still in the writer's buffer) or closed by the next start's recovery sweep
//     (it never finished, so it has no record to lose).
import assert from 'node:assert/strict';
import type { LedgerEntry } from '../../src/store/quota-ledger.js';
import type { LogStore, RequestRecord } from '../../src/request-log/log-store.js';

/**
 * How long before a kill a close may be and still lose its record: the writer's flush (200 ms) and an insert the database
 * had not committed, with room for a loaded machine. Measured (seed 99, 15 runs with 11 kills on each store): 32
 * lost records had closed 8-103 ms before a kill; one more request was cut short by one.
 */
const killWindowMs = 1000;

export interface LogCheck { records: number; closed: number; lostToKills: number }

/** Every record a run left (it lasts seconds: one search of the last hour holds them all). */
export async function allRecords(log: LogStore): Promise<RequestRecord[]> {
  const out: RequestRecord[] = [];
  let before: { at: number; id: string; kind: RequestRecord['kind'] } | undefined;
  for (;;) {
    const page = await log.search({ from: Date.now() - 3_600_000, to: Date.now() + 60_000, limit: 1000, before });
    out.push(...page);
    if (page.length < 1000) return out;
    const last = page.at(-1)!;
    before = { at: last.at, id: last.id, kind: last.kind };
  }
}

/**
 * `slots`: the store is a Redis Cluster, where a reservation across levels takes one slot after another, so a task its
 * user's wallet or team refuses may leave a reserve and its full refund on its token's account, under a task id no task
 * or record ever took (the request's own 403 record is there, under its request id).
 */
export function checkLog(entries: LedgerEntry[], records: RequestRecord[], kills: number[], slots = false): LogCheck {
  const byId = new Map<string, RequestRecord[]>();
  for (const r of records) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
  for (const r of records) assert.equal(byId.get(r.id)!.filter((x) => x.kind === r.kind).length, 1, `${r.id}: one ${r.kind} record`);
  // A task's reservation is recorded by its task record, or by its submit's when the vendor refused it (no task ran).
  const refused = new Map(records.filter((r) => r.task && r.status !== 200).map((r) => [r.task!, r]));
  const recordOf = (request: string) => byId.get(request)?.find((r) => r.kind !== 'topup') ?? refused.get(request);

  const ledger = new Map<string, LedgerEntry[]>();
  for (const e of entries) if (e.kind !== 'topup') ledger.set(e.request, [...(ledger.get(e.request) ?? []), e]);
  let closed = 0;
  let lostToKills = 0;
  for (const [request, es] of ledger) {
    const close = es.find((e) => e.kind === 'settle' || e.kind === 'refund');
    if (!close) continue;
    closed++;
    const charge = es.filter((e) => e.kind !== 'late_charge').reduce((s, e) => s + e.amount, 0);
    const record = recordOf(request);
    if (!record && slots && close.kind === 'refund' && charge === 0 && request.startsWith('task_')) continue;
    if (!record) {
      const began = es.find((e) => e.kind === 'reserve')?.at ?? close.at;
      const inBuffer = kills.some((k) => close.at >= k - killWindowMs && close.at <= k);
      const spanned = kills.some((k) => began <= k && close.at > k);
      assert.ok(inBuffer || spanned, `${request}: closed at ${close.at} (${close.kind}, charge ${charge}) with no record and no kill to excuse it (kills ${kills})`);
      lostToKills++;
      continue;
    }
    assert.equal(record.charged ?? 0, charge, `${request}: the record's charge is the ledger's`);
    assert.equal(record.reserved, es.find((e) => e.kind === 'reserve')?.amount ?? null, `${request}: the record's reservation is the ledger's`);
  }
  for (const r of records) {
    if (r.kind === 'topup' || !r.charged) continue;
    assert.ok(ledger.has(r.id), `${r.id}: a record charges ${r.charged} that the ledger never took`);
  }
  return { records: records.length, closed, lostToKills };
}
