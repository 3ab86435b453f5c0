// A finished task's result files (its operation's `results`: a batch's output and error files), read as they stream
// from the vendor, one line at a time in bounded memory: every line whose request succeeded is charged from the usage
// its answer reports, at the task's price (the lines' charges summed, rounded up once, as the vendor adds up a bill);
// each file then becomes a file of the task's owner, under an id derived from the task's, so reading it again after a
// crash records nothing twice. A file that cannot be read now throws: the task stays as it was for the next poll.
import type { Gateway } from '../pipeline/gateway.js';
import type { CompiledChannel, CompiledOperation, CompiledResults } from '../config/runtime.js';
import { unifiedUsage } from '../config/usage-source.js';
import type { Usage } from '../transform/usage.js';
import { chargeOf, wholeUnits, type ChargeLine } from '../billing/price.js';
import type { ChosenPrice } from '../billing/price-rules.js';
import { JsonLinesPicker } from '../transform/json-lines-picker.js';
import { readUsage, type CompiledUsagePaths } from '../transform/usage-paths.js';
import { channelTarget } from '../transport/channel-target.js';
import { send } from '../transport/http-client.js';
import { fillPath } from '../transform/fill-path.js';
import { resultFileId, type FileRecord } from '../records/file-record.js';
import type { TaskRecord } from '../records/task-record.js';

/** What the result files said: the charge (before the cap at the reservation) and the gateway's id of each file. */
export interface ResultsRead {
  charge: { total: number; lines: ChargeLine[]; usage?: Usage };
  /** Task var → the gateway's id of its file. */
  files: Record<string, string>;
  /** Lines read, charged (a 2xx with usage), and not JSON. */
  counts: { lines: number; charged: number; unreadable: number };
}

export async function readResults(g: Gateway, channel: CompiledChannel, op: CompiledOperation, t: TaskRecord): Promise<ResultsRead> {
  const results = op.results!;
  const holder = channel.operations.get(results.operation);
  if (!holder?.contentPath) throw new Error(`operation ${results.operation} of channel ${channel.id} has no content path to read result files from`);
  if (!t.quota.price) throw new Error(`task ${t.id} has no price to charge its results at`);
  const usagePaths = lineUsagePaths(g, t);
  const sum = new ChargeSum(t.quota.price);
  const counts = { lines: 0, charged: 0, unreadable: 0 };
  const files: Record<string, string> = {};
  const nowMs = Date.now();
  const now = Math.floor(nowMs / 1000);
  for (const [name, fileName] of results.files) {
    const upstreamId = t.vars[name];
    if (!upstreamId) continue;
    const bytes = await readFile(channel, fillPath(holder.contentPath, { upstream_id: upstreamId }), results, usagePaths, (usage) => {
      if (usage) { sum.add(usage); counts.charged++; }
    }, counts);
    const rec: FileRecord = {
      id: resultFileId(t.id, name), owner: t.owner, channel: channel.id, operation: results.operation, upstream_id: upstreamId,
      purpose: results.purpose, filename: `${t.id}_${fileName}`, bytes, created_at: now, expires_at: now + results.expiresS,
    };
    await g.files.create(rec, nowMs);
    files[name] = rec.id;
  }
  return { charge: sum.total(), files, counts };
}

/** Where a line's answer reports usage: as the route its lines follow reads it (a dialect's own paths, or its operation's). */
function lineUsagePaths(g: Gateway, t: TaskRecord): CompiledUsagePaths {
  const route = g.runtime.routes.find((r) => r.id === t.input.lines_route);
  return route?.dialect?.usage ?? unifiedUsage(g.runtime, route?.operation ?? '');
}

/**
 * Streams one file through the picker: each line's status and the usage objects at the answer's usage paths. Resolves
 * with its size in bytes; rejects when it cannot be read whole (a non-200 answer, a cut, an idle vendor).
 */
async function readFile(channel: CompiledChannel, path: string, results: CompiledResults, usagePaths: CompiledUsagePaths,
  onUsage: (u: Usage | undefined) => void, counts: ResultsRead['counts']): Promise<number> {
  const at = usagePaths.at.filter((p) => p.every((s) => s.field === undefined)).map((p) => p.map((s) => s.key));
  const picker = new JsonLinesPicker([results.statusAt, ...at.map((p) => [...results.answerAt, ...p])], (picked, ok) => {
    counts.lines++;
    if (!ok) { counts.unreadable++; return; }
    const status = picked[0];
    if (typeof status !== 'number' || status < 200 || status > 299) return onUsage(undefined);
    const answer: Record<string, unknown> = {};
    at.forEach((p, i) => { if (picked[i + 1] !== undefined) setAt(answer, p, picked[i + 1]); });
    onUsage(readUsage(usagePaths, answer));
  });
  const res = await send(channelTarget(channel, { method: 'GET', path, accept: '*/*' }));
  if (res.statusCode !== 200) {
    res.resume();
    throw new Error(`the result file answered HTTP ${res.statusCode}`);
  }
  let bytes = 0;
  let last = Date.now();
  const idle = setInterval(() => { if (Date.now() - last > channel.timeouts.idle_ms) res.destroy(new Error(`no bytes for ${channel.timeouts.idle_ms} ms`)); }, Math.min(1000, channel.timeouts.idle_ms));
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      last = Date.now();
      bytes += chunk.length;
      picker.write(chunk);
    }
  } finally {
    clearInterval(idle);
  }
  picker.end();
  return bytes;
}

function setAt(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let o = obj;
  for (const k of path.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[path.at(-1)!] = value;
}

/** Lines' charges added up class by class (unrounded), and their usage; rounded up to a whole unit once, at the end. */
class ChargeSum {
  private readonly lines = new Map<string, ChargeLine>();
  private usage?: Usage;
  constructor(private readonly price: ChosenPrice) {}

  add(u: Usage): void {
    for (const l of chargeOf(this.price, u, { units: 1 }).lines) {
      const key = `${l.item}\u0000${l.rate}`;
      const had = this.lines.get(key);
      this.lines.set(key, had ? { ...had, quantity: had.quantity + l.quantity, units: had.units + l.units } : { ...l });
    }
    const s = (this.usage ??= { prompt_tokens: 0, completion_tokens: 0 });
    s.prompt_tokens += u.prompt_tokens;
    s.completion_tokens += u.completion_tokens;
    for (const [k, n] of Object.entries(u.details ?? {})) (s.details ??= {})[k] = (s.details[k] ?? 0) + n;
  }

  total(): ResultsRead['charge'] {
    const lines = [...this.lines.values()];
    return { total: wholeUnits(lines.reduce((n, l) => n + l.units, 0)), lines, usage: this.usage };
  }
}
