// Asks the upstream about tasks of one channel (singly or in one batch) and applies what it says.
import type { Gateway } from '../pipeline/gateway.js';
import type { CompiledChannel, CompiledOperation, CompiledPoll } from '../config/runtime.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { UpstreamFailure } from '../transport/http-client.js';
import type { PollTrace } from '../tracing/tracing.js';
import { applyUpdate } from './apply-update.js';
import { readResults } from './results.js';
import { normalise, type PollResult } from './status-map.js';
import { taskPath, nowSeconds, smallObject, stringVars, type TaskRecord } from '../records/task-record.js';

/** Refreshes tasks that share a channel and operation; failures leave tasks as they were for the next pass. */
export async function refreshTasks(g: Gateway, tasks: TaskRecord[]): Promise<TaskRecord[]> {
  const out: TaskRecord[] = [];
  const live: TaskRecord[] = [];
  for (const t of tasks) {
    const op = g.runtime.channel(t.channel)?.operations.get(t.operation);
    const maxAge = op?.maxAgeS ?? g.runtime.tasks.max_age_s;
    const expired = nowSeconds() - t.created_at > maxAge;
    if (expired) out.push(await fail(g, t, 'timeout', `the task did not finish within ${maxAge} s`));
    else if (!op?.poll || !t.upstream_id) out.push(await fail(g, t, 'channel_unavailable', 'the channel that accepted this task is no longer configured'));
    else live.push(t);
  }
  if (!live.length) return out;
  const channel = g.runtime.channel(live[0].channel)!;
  const op = channel.operations.get(live[0].operation)!;
  const poll = op.poll!;
  const size = poll.batch ?? 1;
  for (let i = 0; i < live.length; i += size) {
    out.push(...await refreshGroup(g, channel, op, poll, live.slice(i, i + size)));
  }
  return out;
}

const fail = (g: Gateway, t: TaskRecord, code: string, message: string) =>
  applyUpdate(g, t, { status: 'failed', progress: 100, urls: [], error: message, errorCode: code });

async function refreshGroup(g: Gateway, channel: CompiledChannel, op: CompiledOperation, poll: CompiledPoll, group: TaskRecord[]): Promise<TaskRecord[]> {
  const span = g.tracing?.poll(channel, group[0].operation, group); // a span of its own, linked to each task's submit
  try {
    const results = await askUpstream(channel, poll, group, span).catch((err) => {
      g.log.warn({ channel: channel.id, tasks: group.map((t) => t.id), err: (err as Error).message }, 'task poll failed');
      span?.end(err instanceof UpstreamFailure ? err.kind : 'poll_failed');
      return undefined;
    });
    return await applyResults(g, channel, op, group, results);
  } finally {
    span?.end();
  }
}

async function applyResults(g: Gateway, channel: CompiledChannel, op: CompiledOperation, group: TaskRecord[], results: Map<string, PollResult> | undefined): Promise<TaskRecord[]> {
  const out: TaskRecord[] = [];
  for (const t of group) {
    const r = results?.get(t.upstream_id!);
    if (!r) { out.push(await applyUpdate(g, t, undefined)); continue; }
    let update = normalise(op, r);
    if (!update) g.log.warn({ task_id: t.id, channel: channel.id, upstream_status: String(r.status) }, 'unknown upstream task status');
    const extra = smallObject(r.extra);
    let withVars = r.vars || extra ? { ...t, vars: { ...t.vars, ...stringVars(r.vars) }, extra: extra ? { ...t.extra, ...extra } : t.extra } : t;
    if (update?.status === 'completed' && op.results) {
      // Settled only from its result files: until they are read the task stays unfinished, and is polled again.
      const read = await readResults(g, channel, op, withVars).catch((err: Error) => {
        g.log.warn({ task_id: t.id, channel: channel.id, err: err.message }, 'the result files of a finished task could not be read; reading them again at the next poll');
        return undefined;
      });
      if (!read) { out.push(await applyUpdate(g, withVars, undefined)); continue; }
      withVars = { ...withVars, extra: { ...withVars.extra, ...read.files } };
      update = { ...update, charge: read.charge };
      g.log.info({ task_id: t.id, channel: channel.id, ...read.counts, charge: read.charge.total }, 'result files read');
    }
    out.push(await applyUpdate(g, withVars, update, r.status === undefined ? undefined : String(r.status)));
  }
  return out;
}

/** Results by upstream id; transient upstream trouble (429, 5xx, unreadable body) yields none. */
async function askUpstream(channel: CompiledChannel, poll: CompiledPoll, group: TaskRecord[], span?: PollTrace): Promise<Map<string, PollResult>> {
  const ids = group.map((t) => t.upstream_id!);
  const bindings = { upstream_id: ids[0], upstream_ids: ids, model: group[0].upstream_model };
  const path = taskPath(poll.path, group[0]);
  const body = poll.request ? Buffer.from(JSON.stringify(await poll.request.run({}, bindings))) : undefined;
  const res = await fetchUpstream(channel, { method: poll.method, path, body, forward: span?.headers() });
  span?.answered(res.status);
  if (res.status === 429 || res.status >= 500) throw new Error(`upstream answered ${res.status}`);
  const parsed = JSON.parse(res.body.toString('utf8'));
  const mapped = await poll.response.run(parsed, { ...bindings, http_status: res.status });
  const list = (Array.isArray(mapped) ? mapped : [mapped]) as PollResult[];
  const byId = new Map<string, PollResult>();
  list.forEach((r, i) => {
    const id = r?.upstream_id !== undefined ? String(r.upstream_id) : poll.batch ? undefined : ids[i];
    if (id !== undefined && r) byId.set(id, r);
  });
  return byId;
}
