// Reservations across levels (issue 39) on the Redis ledger, on one server and on a three-master Redis Cluster: all or
// nothing, the refusing level, repeats, unchecked levels, the keys of one tag on one slot, concurrent requests on one
// wallet, settles and refunds per level and of every level at once (settleLevels, refundLevels), a process that dies
// between a cluster's slots, a seeded model-based property, the Redis commands one request costs, and prune reaching
// the markers of budget levels.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openStore, type Store } from '../src/store/open-store.js';
import { connectRedis, type RedisClient } from '../src/store/redis-client.js';
import { RedisQuotaLedger } from '../src/store/redis-quota.js';
import { slotRuns } from '../src/store/redis-levels.js';
import { acctKey, dueKey, levelTagsKey } from '../src/store/redis-quota-scripts.js';
import { defaultRetention, levelRequest, type Level } from '../src/store/quota-ledger.js';
import { sweep } from '../src/tasks/recovery.js';
import type { Gateway } from '../src/pipeline/gateway.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';
import { startRedisCluster, type RedisClusterServer } from './helpers/redis-cluster.js';
import { monitor, type Seen } from './helpers/redis-monitor.js';
import { levelsProperty } from './helpers/levels-model.js';
import { closesConserve } from './helpers/levels-closes.js';
import { until } from './helpers/wait.js';
import type { UsageRow } from '../src/store/usage.js';

const skip = redisSkip('the Redis ledger\'s levels tests');
const seed = 39;
const numRuns = 60;

let redis: RedisServer | undefined;
let cluster: RedisClusterServer | undefined;
before(async () => {
  if (skip) return;
  redis = await startRedis(); // one after the other: a cluster that fails to start leaves the server to stop in after()
  cluster = await startRedisCluster({ masters: 3 });
});
after(async () => { await Promise.all([redis?.stop(), cluster?.stop()]); });

/** Where a test runs: an emptied store, a plain connection to it, and the ports of the servers holding its keys. */
interface Target {
  name: string;
  cluster: boolean;
  fresh(): Promise<void>;
  uri(): string;
  ports(): Promise<number[]>;
}
const one: Target = {
  name: 'redis', cluster: false,
  async fresh() { await command(redis!.port, ['FLUSHALL']); },
  uri: () => redis!.uri,
  ports: async () => [redis!.port],
};
const three: Target = {
  name: 'redis-cluster', cluster: true,
  fresh: () => cluster!.flush(),
  uri: () => cluster!.uri,
  ports: () => cluster!.masterPorts(),
};

async function command(port: number, args: string[]): Promise<unknown> {
  const { client } = await connectRedis(`redis://127.0.0.1:${port}`);
  try { return await client.sendCommand(args); } finally { client.destroy(); }
}

/** Every key on every master, with the port of the master holding it. */
async function keysOn(t: Target): Promise<[string, number][]> {
  const out: [string, number][] = [];
  for (const p of await t.ports()) for (const k of (await (t.cluster ? cluster!.command(p, ['KEYS', '*']) : command(p, ['KEYS', '*']))) as string[]) out.push([k, p]);
  return out;
}

/** A token's chain of levels for request `id`: token, its day cap, wallet, member cap, team day budget. */
const chain = (tok: string, usr: string, team: string) => [tok, `~${tok}@d1`, `~${usr}`, `~${team}@d1/${usr}`, `~${team}@d1`];
const levelsOf = (accounts: string[], id: string, unchecked: string[] = []): Level[] =>
  accounts.map((account, i) => ({ account, request: levelRequest(id, account, i === 0), unchecked: unchecked.includes(account) || undefined }));
const balances = (s: Store, accounts: string[]) => Promise.all(accounts.map(async (a) => (await s.quota.balance(a))!));

function levelsTests(t: Target): void {
  const it = (title: string, fn: (a: Store, b: Store) => Promise<void>, timeout = 30_000) => test(`${t.name} levels: ${title}`, { skip, timeout }, async () => {
    await t.fresh();
    const [a, b] = [await openStore(t.uri()), await openStore(t.uri())];
    try { await fn(a, b); } finally { await b.close(); await a.close(); }
  });

  it('all or nothing: the first level that cannot cover it is answered and nothing is taken; repeats move nothing', async (s) => {
    const accts = chain('tok_a', 'usr_b', 'team_c');
    const initial = [1000, 100, 50, 500, 30];
    for (const [i, a] of accts.entries()) await s.quota.createAccount(a, initial[i]);
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 'r1'), 40, 'request'), 4, 'the team budget (30) refuses 40');
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 'r2'), 60, 'request'), 2, 'the wallet is the first of the two that refuse 60');
    assert.deepEqual(await balances(s, accts), initial, 'nothing taken');
    // One script writes nothing; on a cluster the slots taken before the refusing one were refunded, entry by entry.
    for (const a of accts) {
      const moved = (await s.quota.entries(a)).filter((e) => e.kind !== 'topup');
      if (!t.cluster) assert.deepEqual(moved, [], `${a}: no entry`);
      assert.ok(moved.every((e) => e.kind === 'reserve' ? moved.some((c) => c.request === e.request && c.kind === 'refund') : e.kind === 'refund'), `${a}: only refunded reservations`);
    }
    assert.deepEqual(await s.quota.openOf(s.instance), []);
    const own = await rawHash(t, `sy:quota:{own:${s.instance}}:open`);
    assert.deepEqual(Object.keys(own), [], 'no pointer left in the owner index');
    assert.equal(await s.quota.reserveLevels([...levelsOf(accts, 'r3'), { account: '~team_none@d1', request: 'r3>~team_none@d1' }], 10, 'request'), 5, 'no account refuses');
    assert.deepEqual(await balances(s, accts), initial);

    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 'r4'), 30, 'request', { user: 'usr_b', model: 'm', route: 'chat' }), -1);
    assert.deepEqual(await balances(s, accts), initial.map((v) => v - 30));
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 'r4'), 30, 'request'), -1, 'a repeat answers taken');
    assert.equal(await s.quota.reserve('tok_a', 'r4', 30, 'request'), true, 'a repeat of the first level alone too');
    assert.deepEqual(await balances(s, accts), initial.map((v) => v - 30), '…and moves nothing');
    const open = await s.quota.openOf(s.instance);
    assert.deepEqual(open.map((o) => [o.account, o.request, o.amount, o.user]).sort(), levelsOf(accts, 'r4').map((l) => [l.account, l.request, 30, 'usr_b']).sort());
    for (const [i, l] of levelsOf(accts, 'r4').entries()) {
      assert.deepEqual((await s.quota.entries(l.account)).filter((e) => e.request === l.request).map((e) => [e.kind, e.amount, e.user]), [['reserve', 30, 'usr_b']], `${accts[i]}: one reservation`);
    }
  });

  it('an unchecked level never refuses and goes below 0; a checked one still refuses; a missing one refuses even unchecked', async (s) => {
    const accts = chain('tok_u', 'usr_u', 'team_u');
    for (const a of accts) await s.quota.createAccount(a, a === '~usr_u' ? 10 : 1000);
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 'u1', ['~usr_u']), 40, 'request'), -1);
    assert.equal(await s.quota.balance('~usr_u'), -30);
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 'u2', ['~usr_u']), 400, 'request'), -1);
    assert.equal(await s.quota.balance('~usr_u'), -430);
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 'u3', ['~usr_u']), 600, 'request'), 0, 'the token (560 left) refuses 600');
    assert.equal(await s.quota.reserveLevels(levelsOf(['tok_u', '~usr_nobody'], 'u4', ['~usr_nobody']), 1, 'request'), 1);
    await s.quota.settle('~usr_u', levelRequest('u1', '~usr_u', false), 40, 25);
    await s.quota.refund('~usr_u', levelRequest('u2', '~usr_u', false), 400);
    assert.equal(await s.quota.balance('~usr_u'), -15, 'topup 10 − charge 25');
  });

  it('keys: a budget level sits under the tag of what it belongs to, beside it, and apart from an account of that name', async (s) => {
    const accts = [...chain('tok_k', 'usr_k', 'team_k'), '~team_k@w2026-11-23', '~team_k@d1/usr_j'];
    for (const a of [...accts, 'usr_k']) await s.quota.createAccount(a, 100);
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 'k1'), 10, 'request'), -1);
    assert.equal(acctKey('~team_k@d1/usr_k'), 'sy:quota:~{a:team_k}@d1/usr_k:');
    assert.equal(acctKey('~usr_k'), 'sy:quota:~{a:usr_k}:');
    assert.equal(acctKey('tok_k'), 'sy:quota:{a:tok_k}:', 'a token\'s keys as before');
    assert.equal(await s.quota.balance('usr_k'), 100, 'the account usr_k is not the wallet ~usr_k');
    assert.equal(await s.quota.balance('~usr_k'), 90);
    const keys = await keysOn(t);
    const quota = keys.filter(([k]) => k.startsWith('sy:quota:') && !k.includes('{own:') && !['sy:quota:owners', 'sy:quota:accounts', levelTagsKey].includes(k));
    const byTag = new Map<string, Set<number>>();
    for (const [k, p] of quota) byTag.set(/\{([^}]*)\}/.exec(k)![1], (byTag.get(/\{([^}]*)\}/.exec(k)![1]) ?? new Set()).add(p));
    assert.deepEqual([...byTag.keys()].sort(), ['a:team_k', 'a:tok_k', 'a:usr_k']);
    for (const [tag, ports] of byTag) assert.equal(ports.size, 1, `${tag}: on one master`);
    for (const a of accts) assert.ok(quota.some(([k]) => k === `${acctKey(a)}bal`), `${a}'s balance`);
    if (t.cluster) {
      const slots = new Set(await Promise.all(quota.filter(([k]) => k.includes('{a:team_k}')).map(([k, p]) => cluster!.command(p, ['CLUSTER', 'KEYSLOT', k]))));
      assert.equal(slots.size, 1, 'every period and member of a team on the team\'s slot');
    }
    assert.deepEqual((await rawSet(t, 'sy:quota:accounts')).sort(), ['tok_k', 'usr_k'], 'no budget level among the accounts');
    assert.deepEqual((await rawSet(t, levelTagsKey)).sort(), ['team_k', 'tok_k', 'usr_k'], 'their tags, once each, for prune');
  });

  it('concurrent requests on a wallet covering k: exactly k are taken, no level below 0, whichever level is the short one', async (a, b) => {
    const k = 7;
    const n = 40;
    for (const [round, short] of [[1, 'wallet'], [2, 'team budget']] as const) {
      const [wallet, team] = [`~usr_w${round}`, `~team_w${round}@d1`];
      const toks = Array.from({ length: n }, (_, i) => `tok_w${round}_${i}`);
      for (const tok of toks) await a.quota.createAccount(tok, 1000);
      await a.quota.createAccount(wallet, round === 1 ? 10 * k : 1_000_000);
      await a.quota.createAccount(team, round === 2 ? 10 * k : 1_000_000);
      const got = await Promise.all(toks.map((tok, i) => (i % 2 ? a : b).quota.reserveLevels(levelsOf([tok, wallet, team], `w${round}_${i}`), 10, 'request')));
      const took = got.map((r, i) => [r, i] as const).filter(([r]) => r < 0).map(([, i]) => i);
      assert.equal(took.length, k, `${short}: ${k} taken`);
      assert.ok(got.every((r) => r === -1 || r === round), `${short}: refused by it only (${got})`);
      assert.deepEqual([await a.quota.balance(wallet), await a.quota.balance(team)], round === 1 ? [0, 1_000_000 - 10 * k] : [1_000_000 - 10 * k, 0]);
      for (const [i, tok] of toks.entries()) assert.equal(await a.quota.balance(tok), took.includes(i) ? 990 : 1000, tok);
    }
  });

  it('settle and refund go level by level, each conserving its account; usage counts each request once, on its token', async (s, other) => {
    const accts = chain('tok_s', 'usr_s', 'team_s');
    for (const a of accts) await s.quota.createAccount(a, 1000);
    await s.quota.createAccount('tok_plain', 1000);
    const tags = { user: 'usr_s', model: 'gpt-x', route: 'chat' };
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 's1'), 100, 'request', tags), -1);
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 's2'), 50, 'request', tags), -1);
    assert.equal(await s.quota.reserve('tok_plain', 'p1', 100, 'request', tags), true);
    for (const l of levelsOf(accts, 's1')) assert.deepEqual(await other.quota.settle(l.account, l.request, 100, 130, { channel: 'c', prompt_tokens: 7 }), { charged: 100, uncharged: 30 });
    for (const l of levelsOf(accts, 's2')) await other.quota.refund(l.account, l.request, 50, { channel: 'c' });
    await s.quota.settle('tok_plain', 'p1', 100, 40, { channel: 'c', prompt_tokens: 3 });
    assert.deepEqual(await balances(s, accts), accts.map(() => 900));
    for (const a of accts) {
      assert.deepEqual((await s.quota.entries(a)).map((e) => [e.kind, e.amount]), [['topup', -1000], ['reserve', 100], ['reserve', 50], ['settle', 0], ['refund', -50]]);
    }
    const hour = Date.now();
    const q = { from: hour - 3_600_000, to: hour + 3_600_000, groupBy: 'token' as const };
    const byKey = (rows: UsageRow[]) => [...rows].sort((x, y) => x.key.localeCompare(y.key));
    const rows = byKey(await s.quota.usage(q));
    assert.deepEqual(rows.map((r) => [r.key, r.requests, r.charged, r.uncharged, r.prompt_tokens]), [['tok_plain', 1, 40, 0, 3], ['tok_s', 2, 100, 30, 7]]);
    assert.deepEqual(byKey(await s.quota.usage({ ...q, accounts: ['tok_plain', 'tok_s'] })), rows, 'the same over the token accounts alone');
    assert.deepEqual(await s.quota.usage({ ...q, accounts: accts.slice(1) }), [], 'budget levels have no usage');
    for (const a of accts.slice(1)) assert.equal((await s.quota.totals(a)).requests, 0, `${a}: no totals`);
    const usageKeys = (await keysOn(t)).map(([key]) => key).filter((key) => key.startsWith('sy:quota:~') && key.includes(':usage'));
    assert.deepEqual(usageKeys, [], 'no rollup key of a budget level');
  });

  it('settleLevels and refundLevels close every level at once: each within its own reservation, repeats move nothing, pointers go', async (s, other) => {
    const { accounts, requests } = await closesConserve(s.quota, 'sl');
    assert.deepEqual(await s.quota.openOf(s.instance), []);
    assert.deepEqual(Object.keys(await rawHash(t, `sy:quota:{own:${s.instance}}:open`)), [], 'no pointer left in the owner index');
    const rows = await s.quota.usage({ from: Date.now() - 3_600_000, to: Date.now() + 3_600_000, groupBy: 'token' });
    assert.deepEqual(rows.map((r) => [r.key, r.requests, r.charged, r.uncharged, r.prompt_tokens]), [['tok_sl', 5, 70 + 50 + 20, 30, 5]], 'once per request, on its token');
    for (const a of accounts.slice(1)) assert.equal((await s.quota.totals(a)).requests, 0, `${a}: no totals`);
    assert.equal(requests.length, 25);
    // Another process closes this one's reservation: its pointers go too (after the script, by that process).
    const accts = chain('tok_so', 'usr_so', 'team_so');
    for (const a of accts) await s.quota.createAccount(a, 100);
    assert.equal(await s.quota.reserveLevels(levelsOf(accts, 'so1'), 60, 'request'), -1);
    assert.deepEqual(await other.quota.settleLevels(levelsOf(accts, 'so1'), 60, 45), { charged: 45, uncharged: 0 });
    assert.deepEqual(await balances(s, accts), accts.map(() => 55));
    assert.deepEqual(Object.keys(await rawHash(t, `sy:quota:{own:${s.instance}}:open`)), []);
  });

  it(`a process that dies ${t.cluster ? 'between the slots of' : 'holding'} a reservation across levels is refunded by the sweep of dead owners`, async (s) => {
    const accts = chain('tok_d', 'usr_d', 'team_d');
    for (const a of accts) await s.quota.createAccount(a, 1000);
    const conn = await connectRedis(t.uri());
    try {
      // The dead process: its scripts after the first never answer (it died while they were on their way).
      let scripts = 0;
      const dying = new Proxy(conn.client, {
        get(target, p) {
          if (p === 'evalSha' && ++scripts > 1) return () => new Promise(() => {});
          const v = Reflect.get(target, p) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      }) as RedisClient;
      const dead = new RedisQuotaLedger(dying, 'i_dead_levels', undefined, defaultRetention, t.cluster);
      void dead.reserveLevels(levelsOf(accts, 'd1'), 100, 'request');
      const taken = t.cluster ? 2 : 5; // the token's slot: tok_d and ~tok_d@d1
      await until('the first script ran', async () => (await s.quota.balance(accts[taken - 1])) === 900, 10_000);
      assert.deepEqual(await balances(s, accts), accts.map((_, i) => (i < taken ? 900 : 1000)));
      assert.deepEqual((await s.quota.openOf('i_dead_levels')).map((o) => o.account).sort(), accts.slice(0, taken).sort());
      const out = await sweep(gatewayOf(s));
      assert.equal(out.refunded, taken);
      assert.deepEqual(await balances(s, accts), accts.map(() => 1000), 'every level whole again');
      assert.deepEqual(await s.quota.openOwners(), []);
      for (const a of accts.slice(0, taken)) assert.deepEqual((await s.quota.entries(a)).map((e) => e.kind), ['topup', 'reserve', 'refund']);
    } finally { conn.watch?.stop(); conn.client.destroy(); }
  });

  it(`a seeded property: random reserveLevels, repeats, settles, refunds and topups on 1–4 levels match a model (seed ${seed}, ${numRuns} runs)`, async (s) => {
    const figures = { reserves: 0, refused: 0, closes: 0 };
    await fc.assert(levelsProperty(() => s.quota, figures), { seed, numRuns, endOnFailure: true });
    console.log(`levels property (${t.name}): ${figures.reserves} reserveLevels (${figures.refused} refused), ${figures.closes} closes across levels`);
  }, 240_000);

  it('Redis commands per request: as many for five levels as for one (one script per slot each way on a cluster)', async (s) => {
    await s.quota.createAccount('tok_m', 1000);
    const accts = chain('tok_n', 'usr_n', 'team_n');
    for (const a of accts) await s.quota.createAccount(a, 1000);
    // The owner is listed (then again every few seconds only) and each master has seen the scripts (else EVALSHA, EVAL).
    await s.quota.reserve('tok_m', 'warm', 1, 'request');
    await s.quota.settle('tok_m', 'warm', 1, 1);
    await s.quota.reserveLevels(levelsOf(accts, 'n0'), 1, 'request');
    await s.quota.settleLevels(levelsOf(accts, 'n0'), 1, 1);
    const count = async (id: string, fn: () => Promise<unknown>) => {
      const ms = await Promise.all((await t.ports()).map(monitor));
      await fn();
      const seen = (await Promise.all(ms.map((m) => m.stop()))).flat();
      return sent(seen, id);
    };
    const lone = await count('m1', async () => { await s.quota.reserve('tok_m', 'm1', 10, 'request'); await s.quota.settle('tok_m', 'm1', 10, 4); });
    const loneBack = await count('m2', async () => { await s.quota.reserve('tok_m', 'm2', 10, 'request'); await s.quota.refund('tok_m', 'm2', 10); });
    const refused = await count('m3', () => s.quota.reserve('tok_m', 'm3', 5000, 'request'));
    const five = await count('n1', async () => {
      await s.quota.reserveLevels(levelsOf(accts, 'n1'), 10, 'request');
      await s.quota.settleLevels(levelsOf(accts, 'n1'), 10, 4);
    });
    const fiveBack = await count('n2', async () => {
      await s.quota.reserveLevels(levelsOf(accts, 'n2'), 10, 'request');
      await s.quota.refundLevels(levelsOf(accts, 'n2'), 10);
    });
    const line = (xs: string[]) => `${xs.length} [${xs.join(' ')}]`;
    console.log(`commands (${t.name}): one level reserve+settle ${line(lone)}, reserve+refund ${line(loneBack)}, refused ${line(refused)}; ` +
      `five levels reserve+settle ${line(five)}, reserve+refund ${line(fiveBack)}`);
    // Before issue 39 a lone reserve+settle sent HSET (owner index), EVALSHA, EVALSHA, HDEL; a refusal HSET, EVALSHA, HDEL.
    // Before settleLevels five levels cost 11 on one server (a close and an HDEL per level) and 14 on a cluster.
    // (Sorted: on a cluster each master's monitor sees its own share, in its own order.)
    const one = t.cluster ? ['EVALSHA', 'EVALSHA', 'HDEL', 'HSET'] : ['EVALSHA', 'EVALSHA'];
    assert.deepEqual(lone.sort(), one);
    assert.deepEqual(loneBack.sort(), one);
    assert.deepEqual(refused.sort(), t.cluster ? ['EVALSHA', 'HDEL', 'HSET'] : ['EVALSHA']);
    // On a cluster: the owner index, a script per slot to reserve and again to close, the owner index.
    const many = t.cluster ? ['EVALSHA', 'EVALSHA', 'EVALSHA', 'EVALSHA', 'EVALSHA', 'EVALSHA', 'HDEL', 'HSET'] : one;
    assert.deepEqual(five.sort(), many);
    assert.deepEqual(fiveBack.sort(), many);
  });

  it('prune reaches budget levels: an idle period\'s expired markers leave its index, and its tag\'s due index empties', async () => {
    const ttl = 1500;
    const short = await openStore(t.uri(), { markerTtlMs: { request: ttl, durable: ttl, topup: ttl } });
    const raw = await connectRedis(t.uri());
    const z = (key: string) => raw.client.zRange(key, 0, -1);
    const expire = () => new Promise((r) => setTimeout(r, ttl + 100));
    try {
      const q = short.quota;
      const accts = chain('tok_r', 'usr_r', 'team_r');
      for (const a of [...accts, '~team_r@d2']) await q.createAccount(a, 1000);
      for (const id of ['r1', 'r2', 'r3']) {
        assert.equal(await q.reserveLevels(levelsOf(accts, id), 10, 'request'), -1);
        await (id === 'r2' ? q.refundLevels(levelsOf(accts, id), 10) : q.settleLevels(levelsOf(accts, id), 10, 7));
      }
      await q.topup('~usr_r', 5, 'r-gift');
      // A reservation still open on the next period: its marker stays, whatever prune does.
      assert.equal(await q.reserve('~team_r@d2', 'r4', 10, 'request'), true);
      const budget = accts.slice(1);
      assert.deepEqual((await z(dueKey('~team_r@d1'))).sort(), ['~team_r@d1', '~team_r@d1/usr_r'], 'the team\'s levels with expiring markers');
      assert.deepEqual(await z(dueKey('~usr_r')), ['~usr_r']);
      assert.equal((await q.prune(Date.now())).entries, 0, 'nothing expired yet');
      assert.deepEqual((await z(dueKey('~team_r@d1'))).sort(), ['~team_r@d1', '~team_r@d1/usr_r'], 'still due');
      await expire();
      for (const a of budget) assert.equal((await z(`${acctKey(a)}entries`)).length, 1 + 6 + (a === '~usr_r' ? 1 : 0), `${a}: the index still lists the expired markers`);
      const out = await q.prune(Date.now());
      assert.equal(out.entries, (accts.length * 6 + 1), 'three requests\' markers on each level, the gift\'s');
      for (const a of budget) assert.deepEqual(await z(`${acctKey(a)}entries`), [`topup:create:${a}`], `${a}: only its creation is left`);
      assert.deepEqual((await z(`${acctKey('~team_r@d2')}entries`)).sort(), ['r4:reserve', 'topup:create:~team_r@d2'], 'an open reservation stays');
      for (const a of budget) assert.deepEqual(await z(dueKey(a)), [], `${a}: its tag has nothing due`);
      assert.deepEqual((await raw.client.sMembers(levelTagsKey)).sort(), ['team_r', 'tok_r', 'usr_r'], 'one tag per owner, whatever the periods');
      assert.deepEqual((await q.entries('~team_r@d1')).map((e) => e.kind), ['topup']);
      // Its close lists the level again, and once its markers expire prune takes them.
      await q.settle('~team_r@d2', 'r4', 10, 10);
      assert.deepEqual(await z(dueKey('~team_r@d2')), ['~team_r@d2']);
      await expire();
      assert.deepEqual(await q.prune(Date.now()), { entries: 2, cells: 0, more: false });
      assert.deepEqual(await z(`${acctKey('~team_r@d2')}entries`), ['topup:create:~team_r@d2']);
      assert.equal(await q.balance('~team_r@d2'), 990);
    } finally { raw.watch?.stop(); raw.client.destroy(); await short.close(); }
  });
}

/** The commands clients sent (not those scripts ran) that name request `id`: the owner index's and the scripts'. */
const sent = (seen: Seen[], id: string) => seen.filter((c) => !c.lua && c.command.includes(`"${id}`) || (!c.lua && c.command.includes(`:${id}:`)))
  .map((c) => JSON.parse(c.command.split(' ')[0]) as string);

async function rawHash(t: Target, key: string): Promise<Record<string, string>> {
  const conn = await connectRedis(t.uri());
  try { return await conn.client.hGetAll(key); } finally { conn.watch?.stop(); conn.client.destroy(); }
}
async function rawSet(t: Target, key: string): Promise<string[]> {
  const conn = await connectRedis(t.uri());
  try { return await conn.client.sMembers(key); } finally { conn.watch?.stop(); conn.client.destroy(); }
}

/** What the sweep of dead owners reads of a gateway, for a store with no tasks, leases or files. */
function gatewayOf(store: Store): Gateway {
  return {
    store, log: { warn() {} }, files: { catalog: store.files },
    runtime: { tasks: { retention_s: 0, lease_ms: 1000, reconcile_window_s: 0 }, longestTaskAgeS: 0, longestFileLifeS: 0 },
  } as unknown as Gateway;
}

test('slot runs: consecutive levels of one tag go together; a tag met again later starts a run of its own', () => {
  const runs = (accounts: string[]) => slotRuns(levelsOf(accounts, 'x'));
  assert.deepEqual(runs(chain('tok_a', 'usr_b', 'team_c')), [[0, 2], [2, 3], [3, 5]]);
  assert.deepEqual(runs(['tok_a']), [[0, 1]]);
  assert.deepEqual(runs(['~usr_b', 'usr_b', '~team_c@m2026-11', 'tok_a', '~tok_a@w2026-11-23']), [[0, 2], [2, 3], [3, 5]]);
  assert.deepEqual(runs(['~team_c@d1', '~usr_b', '~team_c@d1/usr_b']), [[0, 1], [1, 2], [2, 3]]);
});

levelsTests(one);
levelsTests(three);
