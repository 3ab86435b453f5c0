// Money is conserved, as a property: after any random sequence of chats, streams, tasks, vendor failures, client
// aborts, topups and `kill -9`s of the gateway process, for every account
//   balance = topups − charges, every charge ≥ 0 and ≤ its reservation, every reservation closed once,
// every request that ran undisturbed was charged what the billing matrix says, and every level of a request was
// charged alike (a wallet what its token was). Run on SQLite and Redis (conservation.test.ts) and on a Redis Cluster
// (redis-cluster.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { openStore, type Store } from '../../src/store/open-store.js';
import { TokenStore } from '../../src/store/token-store.js';
import { openAccounts } from '../../src/accounts/purse.js';
import { periodAt } from '../../src/accounts/periods.js';
import { walletOf } from '../../src/accounts/user-store.js';
import { memberCapAccount, teamBudgetAccount } from '../../src/accounts/team-store.js';
import { isBudgetLevel } from '../../src/store/quota-ledger.js';
import type { LedgerEntry } from '../../src/store/quota-ledger.js';
import { quickTaskConfig, spawnGateway, type ChildGateway } from './child-gateway.js';
import { expectedCharge } from './api.js';
import { openLogStore } from '../../src/request-log/open-log-store.js';
import { allRecords, checkLog, type LogCheck } from './conservation-log.js';

const kinds = ['chat', 'chatBig', 'chat500', 'chat400', 'stream', 'streamCut', 'streamAbort', 'task', 'taskFail', 'taskRefused', 'taskSlow', 'klingSlow', 'topup', 'kill'] as const;
type Kind = (typeof kinds)[number];
interface Action { kind: Kind; who: 0 | 1; wait: boolean; n: number }
const action = fc.record({
  kind: fc.constantFrom(...kinds), who: fc.constantFrom(0 as const, 1 as const), wait: fc.boolean(), n: fc.integer({ min: 1, max: 6 }),
}).map((a) => Object.assign(a, { [fc.toStringMethod]: () => `${a.kind}(${a.who}${a.wait ? '' : ',async'},${a.n})` }));

const gpt4oMini = { input_per_mtok: 150, output_per_mtok: 600 };
const config = quickTaskConfig({ sweep_interval_ms: 200, reconcile_window_s: 5 });
// A dead process is noticed within 1.5 s here (15 s by default), so a run with a kill takes seconds, not minutes.
// The spool is the run's own, kept across its restarts as a deployment's is (by default a Redis store's would be the
// working directory's data/, shared by every run).
const childEnv = (storeUri: string, logUri: string, simUrl: string, spool: string) => ({
  SWITCHYARD_STORE: storeUri, SWITCHYARD_LOG_STORE: logUri, SWITCHYARD_SIM_URL: simUrl, SWITCHYARD_CONFIG_DIR: config, SWITCHYARD_OWNER_TIMEOUT_MS: '1500',
  SWITCHYARD_LOG_SPOOL_DIR: spool,
});

/** What one undisturbed request must have been charged (the billing matrix), checked against the ledger. */
type Expectation = { request: string; charge: (reserved: number) => number; at?: number };

class Run {
  gw!: ChildGateway;
  readonly inflight: Promise<unknown>[] = [];
  readonly expect: Expectation[] = [];
  readonly kills: number[] = [];
  generation = 0;
  readonly spool = mkdtempSync(join(tmpdir(), 'switchyard-conserve-spool-'));
  constructor(readonly simUrl: string, readonly storeUri: string, readonly logUri: string, readonly store: Store, readonly keys: string[], readonly accounts: string[]) {}

  async restart(): Promise<void> {
    this.generation++;
    this.gw = await spawnGateway(childEnv(this.storeUri, this.logUri, this.simUrl, this.spool));
  }

  /** Runs `fn`; an expectation is kept only if no kill happened while it ran. */
  async perform(a: Action): Promise<void> {
    if (a.kind === 'kill') {
      // A request answered just before the kill may not have been settled yet: a crash forgives it (charge 0).
      this.forget(Date.now() - 1000);
      await this.gw.kill();
      this.kills.push(Date.now());
      await this.restart();
      return;
    }
    if (a.kind === 'topup') { await this.store.quota.topup(this.accounts[a.who], 1000 * a.n, `t${Date.now()}${Math.random()}`); return; }
    const gen = this.generation;
    const p = this.request(a).then((e) => { if (e && gen === this.generation) this.expect.push({ ...e, at: Date.now() }); }, () => undefined);
    if (a.wait) await p; else this.inflight.push(p);
  }

  private forget(since: number): void {
    for (let i = this.expect.length - 1; i >= 0; i--) if ((this.expect[i].at ?? 0) > since) this.expect.splice(i, 1);
  }

  private post(path: string, who: number, body: unknown, signal?: AbortSignal): Promise<Response> {
    return fetch(`${this.gw.url}${path}`, {
      method: 'POST', body: JSON.stringify(body), signal: signal ?? AbortSignal.timeout(20_000),
      headers: { authorization: `Bearer ${this.keys[who]}`, 'content-type': 'application/json' },
    });
  }

  private async request(a: Action): Promise<Expectation | undefined> {
    const chat = (content: string, extra = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra });
    const zero = (r: Response): Expectation => ({ request: r.headers.get('x-request-id')!, charge: () => 0 });
    switch (a.kind) {
      case 'chat': case 'chatBig': {
        const body = a.kind === 'chat' ? chat(`w [sim chunks=${a.n}]`) : chat('a '.repeat(20_000), { max_tokens: 1 });
        const r = await this.post('/v1/chat/completions', a.who, body);
        if (r.status !== 200) return r.status === 403 ? zero(r) : undefined;
        const u = ((await r.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
        return { request: r.headers.get('x-request-id')!, charge: (reserved) => Math.min(reserved, expectedCharge(gpt4oMini, u.prompt_tokens, u.completion_tokens)) };
      }
      case 'chat500': case 'chat400': {
        const r = await this.post('/v1/chat/completions', a.who, chat(`x [sim status=${a.kind === 'chat500' ? 500 : 400}]`));
        await r.text();
        return zero(r);
      }
      case 'stream': {
        const r = await this.post('/v1/chat/completions', a.who, chat(`w [sim chunks=${a.n} interval_ms=20]`, { stream: true, stream_options: { include_usage: true } }));
        const text = await r.text();
        const last = text.split('\n\n').map((e) => e.slice(6)).filter((d) => d.startsWith('{')).map((d) => JSON.parse(d)).find((c) => c.usage);
        if (r.status !== 200 || !last || !text.endsWith('data: [DONE]\n\n')) return undefined;
        return { request: r.headers.get('x-request-id')!, charge: (reserved) => Math.min(reserved, expectedCharge(gpt4oMini, last.usage.prompt_tokens, last.usage.completion_tokens)) };
      }
      case 'streamCut': {
        const r = await this.post('/v1/chat/completions', a.who, chat(`w [sim chunks=20 cut_after=${a.n} interval_ms=10]`, { stream: true }));
        await r.text();
        return undefined; // billed from an estimate: the invariant's bounds apply
      }
      case 'streamAbort': {
        const ac = new AbortController();
        const r = await this.post('/v1/chat/completions', a.who, chat(`w [sim chunks=200 interval_ms=20]`, { stream: true }), ac.signal);
        const reader = r.body!.getReader();
        await reader.read();
        ac.abort();
        return undefined;
      }
      case 'task': case 'taskFail': case 'taskRefused': case 'taskSlow': {
        const directive = { task: 'polls=1', taskFail: 'fail=1 polls=0', taskRefused: 'submit_status=400', taskSlow: `submit_delay_ms=${200 * a.n} polls=1` }[a.kind];
        const r = await this.post('/v1/video/generations', a.who, { model: 'sora-2', seconds: '4', prompt: `v [sim ${directive}]` });
        const j = (await r.json()) as { id?: string };
        if (r.status !== 200) return r.status >= 400 && r.status < 500 ? zero(r) : undefined;
        return { request: j.id!, charge: () => (a.kind === 'taskFail' ? 0 : 400) };
      }
      case 'klingSlow': {
        const r = await this.post('/vendork/v1/videos/text2video', a.who, { model_name: 'kling-v2-master', duration: '5', prompt: `k [sim submit_delay_ms=${200 * a.n} polls=1]` });
        await r.text();
        return r.status === 200 ? undefined : undefined; // adopted after a kill, or not: bounds apply, the charge is 750 or 0
      }
    }
  }
}

/** `detail` says what was left when the wait ends unfulfilled, so a failure shows where recovery stopped. */
async function until(check: () => Promise<boolean>, ms: number, what: string, detail?: () => Promise<unknown>): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`not quiescent within ${ms} ms: ${what}${detail ? ` ${JSON.stringify(await detail())}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The invariant, account by account, from the ledger alone: balance = topups − charges, each request's charge (its
 * entries summed) in [0, its reservation] and, where the billing matrix knows the request, what it says. A budget level
 * written behind keeps no entries per request but one `spend` per flush, the charges of the requests closed on it
 * summed (src/store/held-batch.ts): each counts as charges, ≥ 0 and of one request or more, and those requests are
 * checked one by one on their token's account (and against it: levelsAgree).
 */
export function checkAccount(account: string, balance: number, entries: LedgerEntry[], expect: Expectation[]): void {
  const topups = entries.filter((e) => e.kind === 'topup').reduce((s, e) => s - e.amount, 0);
  const byRequest = new Map<string, LedgerEntry[]>();
  let charges = 0;
  for (const e of entries) {
    if (e.kind === 'topup') continue;
    if (e.kind !== 'spend') { byRequest.set(e.request, [...(byRequest.get(e.request) ?? []), e]); continue; }
    assert.ok(isBudgetLevel(account), `${e.entry}: a spend on a budget level only`);
    assert.ok(e.amount >= 0 && (e.requests ?? 0) >= 1, `${e.entry}: a spend of ${e.amount} over ${e.requests} requests`);
    charges += e.amount;
  }
  for (const [request, es] of byRequest) {
    const reserves = es.filter((e) => e.kind === 'reserve');
    const closes = es.filter((e) => e.kind === 'settle' || e.kind === 'refund');
    const late = es.filter((e) => e.kind === 'late_charge');
    assert.ok(reserves.length <= 1 && closes.length <= 1, `${request}: one reservation and one close at most: ${es.map((e) => e.kind)}`);
    assert.equal(reserves.length, closes.length, `${request}: every reservation is closed`);
    const reserved = reserves[0]?.amount ?? 0;
    const charge = es.reduce((s, e) => s + e.amount, 0);
    assert.ok(charge >= 0, `${request}: charge ${charge} is negative`);
    if (reserves.length) assert.ok(charge <= reserved, `${request}: charge ${charge} exceeds its reservation ${reserved}`);
    for (const l of late) assert.ok(l.amount >= 0, `${request}: a late charge is never negative`);
    // A level beyond the token's own is kept under `<request>><account>` and charged what the request was.
    const matrix = expect.find((x) => x.request === request.split('>')[0]);
    if (matrix && reserves.length) assert.equal(charge, matrix.charge(reserved), `${request}: the billing matrix`);
    charges += charge;
  }
  assert.equal(balance, topups - charges, `${account}: balance = topups − charges`);
}

export interface RunFigures { actions: number; kills: number; requests: number; accounts: { account: string; balance: number; topups: number; charges: number }[]; log: LogCheck }

/**
 * Two users in one team with a monthly budget and a member cap, each with a wallet, one token each (the second capped
 * in total): every request reserves on four or five levels. `levels`: every account beyond the tokens' own.
 */
async function teamOfTwo(store: Store, quota: number) {
  const accounts = openAccounts(store, 0, () => 'UTC');
  const tokens = new TokenStore(store, 0);
  const team = await accounts.teams.create({ name: 'team', budget: quota * 2, member_cap: Math.round(quota * 1.5), period: 'month' });
  const users = [await accounts.users.create({ name: 'one', group: 'default' }, quota), await accounts.users.create({ name: 'two', group: 'default' }, quota * 2)];
  for (const u of users) await accounts.users.update({ ...u, team: team.id });
  const made = [await tokens.create({ group: 'default', quota: 0, user: users[0].id }), await tokens.create({ group: 'default', quota: 0, user: users[1].id, cap: quota * 2 })];
  const period = periodAt('month', Date.now(), 'UTC').key;
  const wallets = users.map((u) => walletOf(u.id));
  const [budget, caps] = [teamBudgetAccount(team.id, period), users.map((u) => memberCapAccount(team.id, period, u.id))];
  // Accounts charged alike: each token and its user's wallet; the members' caps and the team's budget of one period.
  const alike: [string[], string[]][] = [...made.map((m, i): [string[], string[]] => [[m.record.id], [wallets[i]]]), [caps, [budget]]];
  return { made, wallets, levels: [...wallets, budget, ...caps], alike };
}

/**
 * Every level of a request is charged what the request was, as one flush, transaction or script closes them all: what
 * the accounts on each side of `alike` were charged adds up to the same. A late charge (its process was reclaimed while
 * alive: each level pays what it still had) excuses a difference, as does a kill between the closes a cluster runs per slot.
 */
function levelsAgree(charged: Map<string, number>, late: Set<string>, alike: [string[], string[]][]): void {
  const sum = (xs: string[]) => xs.reduce((s, x) => s + (charged.get(x) ?? 0), 0);
  for (const [a, b] of alike) if (![...a, ...b].some((x) => late.has(x))) assert.equal(sum(b), sum(a), `${b} charged what ${a} were`);
}

export interface PropertyOptions {
  /** Gets each passing run's figures (for the record of a test run). */
  report?: (f: RunFigures) => void;
  /** The request log's URI for run i (an empty database); by default a SQLite file of its own. */
  log?: (i: number) => Promise<string>;
}

const sqliteLog = async () => `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-conserve-log-')), 'log.sqlite')}`;

/** The property on the store `fresh(i)` names for run i (emptied), gateways pointed at the simulator at `simUrl()`;
 * after each run the request log is checked against the ledger (conservation-log.ts). */
export function conservationProperty(fresh: (i: number) => Promise<string>, simUrl: () => string, o: PropertyOptions = {}) {
  let i = 0;
  return fc.asyncProperty(fc.array(action, { minLength: 3, maxLength: 14 }), fc.integer({ min: 2000, max: 20_000 }), async (actions, quota) => {
    const [uri, logUri] = [await fresh(i), await (o.log ?? sqliteLog)(i)];
    i++;
    const store = await openStore(uri, { quotaFlushMs: 0 });
    const { made, wallets, levels, alike } = await teamOfTwo(store, quota);
    const run = new Run(simUrl(), uri, logUri, store, made.map((m) => m.key), wallets);
    try {
      await run.restart();
      for (const a of actions) await run.perform(a);
      await Promise.all(run.inflight);
      // Bounds on the wait, not on speed: under the whole suite's load a recovery after two kills once took over 20 s.
      await until(async () => (await store.tasks.count()) === 0, 60_000, 'open tasks',
        async () => ({ pending: await store.tasks.pending(), leased: await store.tasks.leased(Date.now()) }));
      await until(async () => (await store.quota.openOwners()).length === 0, 60_000, 'open reservations', () => store.quota.openOwners());
      assert.equal(await run.gw.stop(), 0, 'the last gateway stops cleanly');
      const figures: RunFigures = { actions: actions.length, kills: run.kills.length, requests: 0, accounts: [], log: { records: 0, closed: 0, lostToKills: 0 } };
      const entries: LedgerEntry[] = [];
      const [charged, late] = [new Map<string, number>(), new Set<string>()];
      for (const account of [...made.map((m) => m.record.id), ...levels]) {
        const balance = await store.quota.balance(account);
        if (balance === undefined) continue; // a period account no request reached
        const mine = await store.quota.entries(account);
        checkAccount(account, balance, mine, run.expect);
        const topups = mine.filter((e) => e.kind === 'topup').reduce((sum, e) => sum - e.amount, 0);
        charged.set(account, topups - balance);
        if (mine.some((e) => e.kind === 'late_charge')) late.add(account);
        figures.accounts.push({ account: account.replace(/_[0-9a-f]{12}/g, ''), balance, topups, charges: topups - balance });
        if (isBudgetLevel(account)) continue;
        figures.requests += mine.filter((e) => e.kind === 'reserve').length;
        entries.push(...mine); // the request log records each request once, as its token's account does
      }
      if (!(uri.startsWith('redis-cluster:') && run.kills.length)) levelsAgree(charged, late, alike);
      const log = await openLogStore(logUri);
      try { figures.log = checkLog(entries, await allRecords(log), run.kills, uri.startsWith('redis-cluster')); } finally { await log.close(); }
      o.report?.(figures);
    } finally {
      await run.gw?.kill().catch(() => undefined);
      await store.close();
    }
  });
}
