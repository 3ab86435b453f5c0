// Money is conserved (test/helpers/conservation.ts) on SQLite and on Redis. CONSERVATION_RUNS (default 6 per
// store) and CONSERVATION_SEED (default 42) pick the runs; a failure prints the sequence and the seed to replay it.
import { test, before, after } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createClient } from '@keyv/redis';
import { startSimulator, type Simulator } from '../simulator/server.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';
import { conservationProperty } from './helpers/conservation.js';

const runs = Number(process.env.CONSERVATION_RUNS ?? 6);
const seed = Number(process.env.CONSERVATION_SEED ?? 42);
const redisSkipped = redisSkip('the Redis conservation property');

let sim: Simulator;
let redis: RedisServer | undefined;
before(async () => {
  sim = await startSimulator({ port: 0, keys: ['sim-key'] });
  if (!redisSkipped) redis = await startRedis();
});
after(async () => { await sim.close(); await redis?.stop(); });

async function freshStore(kind: 'sqlite' | 'redis', i: number): Promise<string> {
  if (kind === 'sqlite') return `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-conserve-')), 'store.sqlite')}`;
  const uri = `${redis!.uri}/${(i % 15) + 1}`;
  const c = createClient({ url: uri });
  await c.connect();
  await c.flushDb();
  await c.close();
  return uri;
}

for (const kind of ['sqlite', 'redis'] as const) {
  test(`${kind}: money is conserved through random requests, failures, aborts and kill -9 (${runs} runs, seed ${seed})`,
    { timeout: 600_000, skip: kind === 'redis' && redisSkipped }, async () => {
      await fc.assert(conservationProperty((i) => freshStore(kind, i), () => sim.url), { numRuns: runs, seed, endOnFailure: true, includeErrorInReport: true });
      console.log(`conservation (${kind}): ${runs} runs, seed ${seed}: balance = topups − charges held for every account`);
    });
}
