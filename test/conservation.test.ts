// Money is conserved (test/helpers/conservation.ts) on SQLite and on Redis, with the request log on PostgreSQL (a
// database per run; SQLite where PostgreSQL is not installed, outside CI) and checked against the ledger after every
// run. CONSERVATION_RUNS (default 6 per store) and CONSERVATION_SEED (default 42) pick the runs; a failure prints the
// sequence and the seed to replay it.
import { describe, test, before, after } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createClient } from '@keyv/redis';
import { startSimulator, type Simulator } from '../simulator/server.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';
import { conservationProperty, type RunFigures } from './helpers/conservation.js';
import { freshDatabase, postgresSkip, startPostgres, type PostgresServer } from './helpers/postgres.js';

const runs = Number(process.env.CONSERVATION_RUNS ?? 6);
const seed = Number(process.env.CONSERVATION_SEED ?? 42);
const redisSkipped = redisSkip('the Redis conservation property');
const postgresSkipped = postgresSkip('the conservation runs with the request log on PostgreSQL');

let sim: Simulator;
let redis: RedisServer | undefined;
let postgres: PostgresServer | undefined;
before(async () => {
  sim = await startSimulator({ port: 0, keys: ['sim-key'] });
  if (!redisSkipped) redis = await startRedis();
  if (!postgresSkipped) postgres = await startPostgres();
});
after(async () => { await sim.close(); await redis?.stop(); await postgres?.stop(); });

async function freshStore(kind: 'sqlite' | 'redis', i: number): Promise<string> {
  if (kind === 'sqlite') return `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-conserve-')), 'store.sqlite')}`;
  const uri = `${redis!.uri}/${(i % 15) + 1}`;
  const c = createClient({ url: uri });
  await c.connect();
  await c.flushDb();
  await c.close();
  return uri;
}

// The two stores run side by side: each run waits on its child gateway most of the time (kills, recoveries).
describe('conservation on each store', { concurrency: true }, () => {
  for (const kind of ['sqlite', 'redis'] as const) {
    const logOn = postgresSkipped ? 'SQLite' : 'PostgreSQL';
    test(`${kind}: money is conserved through random requests, failures, aborts and kill -9, the request log on ${logOn} agreeing (${runs} runs, seed ${seed})`,
      { timeout: 600_000, skip: kind === 'redis' && redisSkipped }, async () => {
        const figures: RunFigures[] = [];
        const log = postgres && ((i: number) => freshDatabase(postgres!, `conserve_${kind}_${i}`));
        await fc.assert(conservationProperty((i) => freshStore(kind, i), () => sim.url, { log, report: (f) => figures.push(f) }),
          { numRuns: runs, seed, endOnFailure: true, includeErrorInReport: true });
        const sum = (k: 'records' | 'closed' | 'lostToKills') => figures.reduce((s, f) => s + f.log[k], 0);
        console.log(`conservation (${kind}): ${runs} runs, seed ${seed}: balance = topups − charges held for every account; ` +
          `log on ${logOn}: ${sum('records')} records, ${sum('closed')} closed reservations, ${sum('lostToKills')} without a record after a kill -9 ` +
          `(${figures.reduce((s, f) => s + f.kills, 0)} kills)`);
        // Per level: the tokens' accounts, the two wallets, the team's budget and the members' caps for the month.
        const levels = new Map<string, { checked: number; charges: number }>();
        for (const a of figures.flatMap((f) => f.accounts)) {
          const l = levels.get(a.account) ?? { checked: 0, charges: 0 };
          levels.set(a.account, { checked: l.checked + 1, charges: l.charges + a.charges });
        }
        console.log(`conservation (${kind}) per level: ${[...levels].map(([k, l]) => `${k} ${l.checked} runs, ${l.charges} charged`).join('; ')}`);
      });
  }
});
