// Two "processes" (a connection and an owner each) on one SQLite state file, for reservations across levels: with
// write-behind holds (HeldQuota, the default) or written through (SqliteQuotaLedger, SWITCHYARD_QUOTA_FLUSH_MS=0).
// A crash ends one and a fresh one takes its place, taking back what the dead one left as a restart would.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStateDb, type StateDb } from '../../src/store/sqlite-state.js';
import { SqliteQuotaLedger } from '../../src/store/sqlite-quota.js';
import { SqliteHolds } from '../../src/store/sqlite-holds.js';
import { HeldQuota, type HeldQuotaOptions } from '../../src/store/held-quota.js';
import { levelRequest, type Level, type QuotaLedger } from '../../src/store/quota-ledger.js';

export const freshFile = () => join(mkdtempSync(join(tmpdir(), 'switchyard-levels-')), 'state.sqlite');

/** A reservation's levels: the first under `id`, the others under `<id>><account>`. */
export const levelsOf = (id: string, accounts: { account: string; unchecked?: boolean }[]): Level[] =>
  accounts.map((a, i) => ({ ...a, request: levelRequest(id, a.account, i === 0) }));

export interface HeldProcess { q: HeldQuota; ledger: SqliteQuotaLedger; db: StateDb; errors: string[] }

/** One write-behind "process": its own connection and owner on the shared file. */
export function openHeld(file: string, o: Partial<HeldQuotaOptions> = {}): HeldProcess {
  const db = openStateDb(file);
  const ledger = new SqliteQuotaLedger(db);
  const errors: string[] = [];
  const q = new HeldQuota(ledger, new SqliteHolds(db, ledger.rollup), { flushMs: 20, staleMs: 15_000, idleMs: 10_000, onError: (m) => errors.push(m), ...o });
  return { q, ledger, db, errors };
}

/** What the file says of an account: its row, and the holds on it (every owner's). */
export function stored(db: StateDb, account: string): { row: number; holds: number[] } {
  const row = db.prepare('SELECT balance FROM quota_accounts WHERE id = ?').pluck().get(account) as number;
  const held = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'quota_holds'").get() !== undefined; // none written through
  const holds = held ? db.prepare('SELECT amount FROM quota_holds WHERE account = ?').pluck().all(account) as number[] : [];
  return { row, holds };
}

/** The account's money, wherever it is: its row plus every hold on it. */
export const total = (db: StateDb, account: string) => {
  const s = stored(db, account);
  return s.row + s.holds.reduce((x, y) => x + y, 0);
};

export interface Rig {
  /** A connection of its own, for reading the file. */
  db: StateDb;
  ledger: SqliteQuotaLedger;
  procs: QuotaLedger[];
  /** Money neither charged nor reserved, as the processes see it together. */
  available(account: string): Promise<number>;
  flush(p: number): void;
  /** Process p's owner id: what its rows are written as (held_by). */
  owner(p: number): string;
  /** Process p dies (nothing more of its memory is written) and a fresh one takes its place and what it left. */
  crash(p: number): Promise<void>;
  close(): Promise<void>;
}

/** Write-behind: each process holds slices in its own holds. */
export function heldRig(file: string, flushMs: number): Rig {
  const procs = [openHeld(file, { flushMs }), openHeld(file, { flushMs })];
  const db = openStateDb(file);
  const ledger = new SqliteQuotaLedger(db);
  return {
    db, ledger,
    get procs() { return procs.map((p) => p.q); },
    async available(account) {
      // Each process's balance is the stored money less its own reservations and unwritten charges.
      const seen = await Promise.all(procs.map((p) => p.q.balance(account)));
      return seen.reduce((s: number, b) => s + b!, 0) - (procs.length - 1) * total(db, account);
    },
    flush(p) { procs[p].q.flush(); },
    owner(p) { return Reflect.get(procs[p].q, 'owner') as string; },
    async crash(p) {
      const dead = procs[p];
      clearInterval(Reflect.get(dead.q, 'timer') as NodeJS.Timeout); // gone: no timer, no more flushes
      const owner = Reflect.get(dead.q, 'owner') as string;
      dead.db.close();
      // Silent since long ago: the next process to start reclaims its holds (its pid, ours, is alive on this host).
      db.prepare('UPDATE quota_owners SET beat_at = 0 WHERE owner = ?').run(owner);
      procs[p] = openHeld(file, { flushMs });
      procs[p].q.begin();
    },
    async close() {
      for (const p of procs) { await p.q.close(); p.db.close(); }
      db.close();
    },
  };
}

/** Written through: every reserve and close is a transaction of the ledger; a dead owner's reservations are refunded by recovery. */
export function writeThroughRig(file: string): Rig {
  let n = 0;
  const open = () => { const db = openStateDb(file); return { db, l: new SqliteQuotaLedger(db, `w${n++}`) }; };
  const procs = [open(), open()];
  const db = openStateDb(file);
  const ledger = new SqliteQuotaLedger(db, 'reader');
  return {
    db, ledger,
    get procs() { return procs.map((p) => p.l); },
    async available(account) { return (await ledger.balance(account))!; },
    flush() {},
    owner(p) { return Reflect.get(procs[p].l, 'owner') as string; },
    async crash(p) {
      const dead = procs[p];
      const owner = Reflect.get(dead.l, 'owner') as string;
      dead.db.close();
      procs[p] = open();
      // What recovery.ts does for a dead owner: its request reservations refunded in full.
      for (const r of await procs[p].l.openOf(owner)) if (r.scope === 'request') await procs[p].l.refund(r.account, r.request, r.amount);
    },
    async close() {
      for (const p of procs) p.db.close();
      db.close();
    },
  };
}
