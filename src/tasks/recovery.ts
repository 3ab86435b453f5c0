// Recovery: what a dead gateway process left behind is taken back. Its open request reservations are refunded;
// its submits cut before the vendor answered are found at the vendor (the operation's `reconcile`) and adopted,
// or refunded and marked failed once the vendor cannot or will not say. Every instance runs it at start and
// every `tasks.sweep_interval_ms` (pruning long-expired task catalog entries too); each step is idempotent or done
// under the task's lease, so several may run.
import { refundLevels } from '../accounts/level-moves.js';
import type { Gateway } from '../pipeline/gateway.js';
import type { CompiledChannel, CompiledReconcile } from '../config/runtime.js';
import type { PendingTask } from '../store/task-index.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { applyUpdate } from './apply-update.js';
import { acceptTask } from './accept.js';
import type { PollResult } from './status-map.js';
import { isFinal, stringVars, type TaskRecord } from '../records/task-record.js';

export interface SweepResult { refunded: number; adopted: number; failed: number }

export async function sweep(g: Gateway): Promise<SweepResult> {
  const out: SweepResult = { refunded: await refundDeadReservations(g), adopted: 0, failed: 0 };
  const pending = await g.store.tasks.pending();
  const alive = await g.store.alive([...new Set(pending.map((p) => p.owner))]);
  for (const p of pending) {
    if (alive.has(p.owner)) continue;
    const r = await recoverSubmit(g, p).catch((err) => {
      g.log.warn({ task_id: p.id, err: (err as Error).message }, 'recovery of a cut submit failed; retrying at the next sweep');
      return undefined;
    });
    if (r) out[r]++;
  }
  await releaseDeadLeases(g);
  await pruneCatalog(g);
  if (out.refunded || out.adopted || out.failed) g.log.warn({ ...out }, 'recovered what a gateway process that is gone left behind');
  return out;
}

/** Request reservations live only as long as their process: a dead owner's are refunded in full. */
async function refundDeadReservations(g: Gateway): Promise<number> {
  const owners = (await g.store.quota.openOwners()).filter((o) => o !== g.store.instance);
  const alive = await g.store.alive(owners);
  let n = 0;
  for (const owner of owners.filter((o) => !alive.has(o))) {
    for (const r of await g.store.quota.openOf(owner)) {
      if (r.scope !== 'request') continue; // a task's reservation follows its task
      await g.store.quota.refund(r.account, r.request, r.amount);
      n++;
    }
  }
  return n;
}

/** Tasks a dead poller had claimed are polled again now, not when its lease would have run out. */
async function releaseDeadLeases(g: Gateway): Promise<void> {
  const now = Date.now();
  // Inline refreshes lease as `<instance>:q:<nonce>`: the instance is what lives or dies.
  const leased = (await g.store.tasks.leased(now)).map((l) => ({ ...l, owner: l.owner.split(':')[0] })).filter((l) => l.owner !== g.store.instance);
  const alive = await g.store.alive([...new Set(leased.map((l) => l.owner))]);
  for (const l of leased) if (!alive.has(l.owner)) await g.store.tasks.reschedule(l.id, now);
}

/**
 * Catalog entries outlive nothing: a task finishes within `max_age_s` (or its operation's own, when longer) and its
 * record expires `retention_s` later, so entries older than both (and a day of slack for a changed setting) point at nothing.
 * Listings drop such entries as they meet them; this catches those of tasks nobody lists.
 */
async function pruneCatalog(g: Gateway): Promise<void> {
  const { retention_s } = g.runtime.tasks;
  await g.store.catalog.prune(Date.now() - (g.runtime.longestTaskAgeS + retention_s + 86_400) * 1000, 1000);
  // A file's record lives at most the longest a file may be kept: entries older than that (and a day) are of gone records.
  await g.files.catalog.prune(Date.now() - (g.runtime.longestFileLifeS + 86_400) * 1000, 1000);
}

type Outcome = keyof Omit<SweepResult, 'refunded'> | undefined;

async function recoverSubmit(g: Gateway, p: PendingTask): Promise<Outcome> {
  const now = Date.now();
  if (!(await g.store.tasks.lease(p.id, g.store.instance, now, now + g.runtime.tasks.lease_ms))) return undefined;
  const rec = await g.tasks.get(p.id);
  if (!rec) return dropOrphan(g, p.id);
  if (!rec.submitting) return finishAcceptance(g, rec);
  const channel = g.runtime.channel(rec.channel);
  const op = channel?.operations.get(rec.operation);
  if (channel && op?.reconcile) {
    const found = await lookUp(channel, op.reconcile, rec).catch(() => 'unknown' as const);
    if (found && found !== 'unknown') {
      await acceptTask(g, op, { ...rec, upstream_id: String(found.upstream_id), vars: { ...rec.vars, ...stringVars(found.vars) } }, found as Record<string, unknown>);
      return 'adopted';
    }
    const waited = now - rec.submitting.started_at;
    if (found === 'unknown' || waited < g.runtime.tasks.reconcile_window_s * 1000) {
      await g.store.tasks.reschedule(p.id, now); // ask again at the next sweep
      return undefined;
    }
  }
  await applyUpdate(g, { ...rec, submitting: undefined }, {
    status: 'failed', progress: 100, urls: [], errorCode: 'submit_interrupted',
    error: 'the gateway stopped before the vendor answered the submit; nothing is charged',
  });
  return 'failed';
}

/** No record: the process died before its first attempt. Whatever it reserved goes back, and the slot is freed. */
export async function dropOrphan(g: Gateway, id: string): Promise<Outcome> {
  const r = await g.store.quota.reservationOf(id);
  if (r) {
    // Its other levels (wallet, team budget) are reservations of their own, named after it.
    const levels = (await g.store.quota.openOf(r.owner)).filter((o) => o.request.startsWith(`${id}>`));
    await refundLevels(g.store.quota, [{ account: r.account, request: id }, ...levels], r.amount);
  }
  await g.store.tasks.close(id);
  return 'failed';
}

/** The vendor's answer was recorded but the index was not told (a crash in between): finish that step. */
async function finishAcceptance(g: Gateway, rec: TaskRecord): Promise<Outcome> {
  if (isFinal(rec.status)) await g.store.tasks.close(rec.id);
  else {
    await g.store.tasks.reschedule(rec.id, Date.now());
    await g.store.tasks.setChannel(rec.id, rec.channel);
  }
  return 'adopted';
}

/** The vendor's view of a task it may have accepted: a poll result, null when it does not know it, or throws when it cannot say. */
async function lookUp(channel: CompiledChannel, r: CompiledReconcile, rec: TaskRecord): Promise<PollResult | null> {
  const bindings = { task_id: rec.id, path: rec.submitting!.path, model: rec.upstream_model };
  const path = r.pathExpr ? String(await r.pathExpr.run({}, bindings)) : r.path!.replace('{task_id}', encodeURIComponent(rec.id));
  const res = await fetchUpstream(channel, { method: r.method, path });
  if (res.status === 429 || res.status >= 500) throw new Error(`upstream answered ${res.status}`);
  let parsed: unknown;
  try { parsed = JSON.parse(res.body.toString('utf8')); } catch { parsed = undefined; }
  const found = (await r.response.run(parsed, { ...bindings, http_status: res.status })) as PollResult | undefined;
  return found && found.upstream_id !== undefined && found.upstream_id !== null && found.upstream_id !== '' ? found : null;
}
