// The admin usage report over a ledger of a million entries (500,000 requests, each a reserve and a close, stored as one row), written
// through the same path a gateway's quota flushes take (SqliteHolds.commit: the entries and the hourly rollup in one
// transaction), spread over 30 days, 200 tokens of 50 users, 5 models, 3 routes and 2 channels. Each query is what
// GET /admin/usage asks the store; beside it, the same report computed from the ledger itself, which is what the
// rollup saves. Runs in this process on a temp SQLite file: the gateway is not involved.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStateDb } from '../../src/store/sqlite-state.js';
import { SqliteQuotaLedger } from '../../src/store/sqlite-quota.js';
import { SqliteHolds } from '../../src/store/sqlite-holds.js';
import type { Closed } from '../../src/store/held-rows.js';
import type { UsageQuery } from '../../src/store/usage.js';
import type { BenchContext, Row, Scenario, Section } from '../scenario.js';
import { fmt, fmtInt, median } from '../stats.js';

const requests = 500_000;
const batch = 5_000; // requests per flush transaction, as a busy gateway's 50 ms flush would hold
const days = 30;
const tokens = Array.from({ length: 200 }, (_, i) => `tok_${i.toString(16).padStart(4, '0')}`);
// user_k owns tokens k, k + 50, k + 100 and k + 150.
const models = ['gpt-4o-mini', 'gpt-4o', 'claude-haiku-4-5', 'text-embedding-3-small', 'sora-2'];
const routes = ['chat_completions', 'responses', 'messages'];
const channels = ['sim_openai', 'openai'];
const targetMs = 50;

/** Request i of the run, closed, in time order over the last 30 days (as a gateway writes them), ids increasing like its own. */
function closedOf(i: number, now: number): Closed {
  const token = tokens[(i * 7) % tokens.length];
  const at = now - days * 86_400_000 + Math.floor((i * days * 86_400_000) / requests);
  const id = `req_${i.toString(36).padStart(8, '0')}`;
  const tags = { user: `user_${tokens.indexOf(token) % 50}`, model: models[i % models.length], route: routes[i % routes.length] };
  const reserved = 2_000;
  const charged = 100 + (i % 900);
  return {
    request: id, account: token, reserved, charged, uncharged: 0, kind: 'settle', reservedAt: at - 500, at, reserveTags: tags,
    closeTags: { ...tags, channel: channels[i % channels.length], prompt_tokens: 50 + (i % 200), completion_tokens: 20 + (i % 300) },
  };
}

function timeQuery(fn: () => unknown, repeats: number): { ms: number; rows: number } {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < repeats; i++) {
    const t = performance.now();
    const r = fn();
    times.push(performance.now() - t);
    rows = Array.isArray(r) ? r.length : rows;
  }
  return { ms: median(times), rows };
}

export const usageReport: Scenario = {
  name: 'usage-report',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-usage-'));
    const db = openStateDb(join(dir, 'state.sqlite'));
    try {
      const ledger = new SqliteQuotaLedger(db, 'bench');
      const holds = new SqliteHolds(db, ledger.rollup);
      holds.register('bench', Date.now());
      const now = Date.now();
      ctx.log(`usage-report: writing the ledger entries of ${fmtInt(requests)} requests`);
      const t0 = performance.now();
      for (let start = 0; start < requests && !ctx.signal.aborted; start += batch) {
        const closed: Closed[] = [];
        for (let i = start; i < Math.min(requests, start + batch); i++) closed.push(closedOf(i, now));
        holds.commit('bench', { key: `fill${start}`, closed, spends: new Map() }, Date.now());
      }
      const fillS = (performance.now() - t0) / 1000;
      const count = (sql: string) => db.prepare(sql).pluck().get() as number;
      const entries = count('SELECT COUNT(*) FROM quota_ledger');
      const cells = count('SELECT COUNT(*) FROM usage_hourly');
      const dayCells = count('SELECT COUNT(*) FROM usage_daily');
      const month = { from: now - days * 86_400_000, to: now + 1 };
      const reports: [string, UsageQuery][] = [
        ['every token, by model, 30 days', { ...month, groupBy: 'model' }],
        ['every token, by day, 30 days', { ...month, groupBy: 'day' }],
        ['every token, by token, 30 days', { ...month, groupBy: 'token' }],
        ['one token, by day, 30 days', { ...month, accounts: [tokens[7]], groupBy: 'day' }],
        ['one user (4 tokens), by model, 30 days', { ...month, user: 'user_7', groupBy: 'model' }],
        ['every token, by model, from mid-day to mid-day', { from: month.from + 43_200_000, to: now - 43_200_000, groupBy: 'model' }],
        ['every token, by route, one day', { from: now - 86_400_000, to: now + 1, groupBy: 'route' }],
      ];
      const rows: Row[] = [
        { metric: 'ledger rows written (one per request: its close, carrying the reservation)', gateway: fmtInt(entries) },
        { metric: 'rollup cells: hourly / daily (account × period × model × route × channel)', gateway: `${fmtInt(cells)} / ${fmtInt(dayCells)}` },
        { metric: 'write time, in flush transactions of 5,000 requests', gateway: `${fmt(fillS, 1)} s (${fmt((fillS * 1e6) / requests, 1)} µs a request)` },
      ];
      for (const [name, q] of reports) {
        const r = timeQuery(() => ledger.rollup.query(q), 20);
        rows.push({ metric: `GET /admin/usage: ${name}`, target: `≤ ${targetMs} ms`, gateway: `${fmt(r.ms, 2)} ms (${fmtInt(r.rows)} rows)`, pass: r.ms <= targetMs });
      }
      // The same first report from the ledger itself: what a report would cost without the rollup.
      const raw = timeQuery(() => db.prepare(`SELECT model, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), SUM(amount) FROM quota_ledger
        WHERE kind IN ('settle', 'refund', 'late_charge') AND at >= ? AND at < ? GROUP BY model`).all(month.from, month.to), 3);
      rows.push({ metric: 'the same by-model report read from the ledger entries (no rollup)', gateway: `${fmt(raw.ms, 1)} ms` });
      return {
        title: 'Usage report over a million ledger entries (SQLite, in process)', rows,
        notes: [
          `${fmtInt(requests)} requests over ${days} days, ${tokens.length} tokens of 50 users, ${models.length} models, ${routes.length} routes, ${channels.length} channels, written by SqliteHolds.commit (entries and rollup in one transaction).`,
          'Each report is the median of 20 runs of the query GET /admin/usage makes (src/store/sqlite-usage.ts): the daily cells of the whole days in the range and the hourly cells of its two ends, so a report reads cells, not entries.',
        ],
      };
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
