// Micro bench of the write-behind quota on a request's path (src/store/held-quota.ts): reserve then settle, in one
// process, against a hold warmed up so no slice is grabbed while measuring. `node dist/bench/quota-levels.js
// [iterations] [rounds]` prints CPU µs per reserve+settle (the median of the rounds; CPU time, as wall time moves with
// whatever else the machine runs) for `reserve` and for `reserveLevels` on 1, 2 and 4 levels (each level settled),
// twice: with holds whose flushes write nothing (`memory`: the in-memory path alone, what a request waits for) and on
// SQLite (`sqlite`: the flush every 2,048 closes included, whose cost grows with the ledger).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStateDb } from '../src/store/sqlite-state.js';
import { SqliteQuotaLedger } from '../src/store/sqlite-quota.js';
import { SqliteHolds } from '../src/store/sqlite-holds.js';
import { HeldQuota } from '../src/store/held-quota.js';
import { levelRequest, type Level } from '../src/store/quota-ledger.js';
import type { HoldBackend } from '../src/store/hold-backend.js';

const iterations = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 5);
const tags = { user: 'u1', model: 'gpt-4o-mini', route: 'chat_completions' };
const close = { channel: 'c1', prompt_tokens: 100, completion_tokens: 20 };

type Case = (q: HeldQuota, accounts: string[], id: string) => Promise<void>;

const viaReserve: Case = async (q, [account], id) => {
  if (!(await q.reserve(account, id, 100, 'request', tags))) throw new Error('refused');
  await q.settle(account, id, 100, 60, close);
};

const viaLevels: Case = async (q, accounts, id) => {
  const levels: Level[] = accounts.map((account, i) => ({ account, request: levelRequest(id, account, i === 0) }));
  if ((await q.reserveLevels(levels, 100, 'request', tags)) >= 0) throw new Error('refused');
  for (const l of levels) await q.settle(l.account, l.request, 100, 60, close);
};

/** Holds that take any slice asked for and write nothing: what is left to measure is HeldQuota's own work. */
const memoryHolds = (): HoldBackend => ({
  register() {}, grab: (_o, _a, _need, want) => want, release() {}, commit: () => true, chargeLate() {}, reclaimDead: () => 0, retire() {},
  heldTotal: () => 0, heldByOthers: () => 0, hasAccount: () => true, want() {}, unwant() {}, wanted: () => [],
});

async function measure(backend: 'memory' | 'sqlite', name: string, levels: number, run: Case): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-quota-'));
  const db = openStateDb(join(dir, 'state.sqlite'));
  const ledger = new SqliteQuotaLedger(db);
  const holds = backend === 'memory' ? memoryHolds() : new SqliteHolds(db, ledger.rollup);
  const q = new HeldQuota(ledger, holds, { flushMs: 50, staleMs: 15_000, idleMs: 60_000, onError: (m) => console.error(m) });
  const accounts = Array.from({ length: levels }, (_, i) => (i ? `~lvl${i}` : 'tok_bench'));
  try {
    for (const a of accounts) {
      await q.createAccount(a, 1e15);
      // One big reservation and its refund: the hold then covers the whole run without another grab.
      await q.reserve(a, `warm:${a}`, 1e12, 'request');
      await q.refund(a, `warm:${a}`, 1e12);
    }
    const times: number[] = [];
    for (let r = 0; r <= rounds; r++) {
      const t0 = process.cpuUsage();
      for (let i = 0; i < iterations; i++) await run(q, accounts, `r${r}_${i}`);
      const cpu = process.cpuUsage(t0);
      const us = (cpu.user + cpu.system) / iterations;
      if (r > 0) times.push(us); // the first round warms the JIT up
    }
    times.sort((a, b) => a - b);
    console.log(`${backend.padEnd(7)} ${name.padEnd(16)} ${times[times.length >> 1].toFixed(3)} µs/op (rounds: ${times.map((t) => t.toFixed(3)).join(' ')})`);
  } finally {
    await q.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`reserve + settle, ${iterations} iterations × ${rounds} rounds (median)`);
for (const backend of ['memory', 'sqlite'] as const) {
  await measure(backend, 'reserve', 1, viaReserve);
  for (const n of [1, 2, 4]) await measure(backend, `reserveLevels ×${n}`, n, viaLevels);
}
