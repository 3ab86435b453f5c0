// Test harness: the vendor simulator and a gateway in front of it on loopback, with a fresh store and captured logs.
import { randomBytes } from 'node:crypto';
import { isUserId, walletOf } from '../../src/accounts/user-store.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startSimulator, type Simulator } from '../../simulator/server.js';
import { startGateway, type Running } from '../../src/start.js';
import { tempLogFor } from './child-gateway.js';
import { projectRoot } from '../../src/config/load-config.js';

export { eventually, until } from './wait.js';

export interface Stack {
  sim: Simulator;
  gw: Running;
  url: string;
  storeUri: string;
  /** Every log line the gateway wrote, parsed. */
  logs(): Record<string, any>[];
  rawLogs(): string;
  token(opts?: { group?: string; quota?: number; models?: string[] }): Promise<{ key: string; id: string }>;
  balance(id: string): Promise<number | undefined>;
  /** Stops the gateway only (the store file stays) and starts a new one on the same store. */
  restartGateway(): Promise<void>;
  /** Starts another gateway on the same store and simulator (another instance); closing it stops only that gateway. */
  peer(): Promise<Stack>;
  close(): Promise<void>;
}

export interface StackOptions {
  configDir?: string;
  env?: Record<string, string>;
  /** More environment made from the simulator's URL (e.g. every vendor's base URL pointed at it). */
  envFor?: (simUrl: string) => Record<string, string>;
  storeUri?: string;
  simKeys?: string[];
}

export const fixture = (name: string) => join(projectRoot, 'test', 'fixtures', name);

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const sim = await startSimulator({ port: 0, keys: opts.simKeys ?? ['sim-key', 'key-a', 'key-b', 'key-c'] });
  const storeUri = opts.storeUri ?? `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-test-')), 'store.sqlite')}`;
  const stack = await gatewayOn(sim, storeUri, opts);
  const close = stack.close;
  stack.close = async () => { await close(); await sim.close(); };
  return stack;
}

/** A gateway in front of `sim` on `storeUri`, with its own captured logs; close() stops the gateway only. */
async function gatewayOn(sim: Simulator, storeUri: string, opts: StackOptions): Promise<Stack> {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(...String(chunk).split('\n').filter(Boolean)); cb(); } });

  const env = { ...process.env, ...tempLogFor(storeUri), SWITCHYARD_SIM_URL: sim.url, ...opts.envFor?.(sim.url), ...opts.env };
  const boot = () => startGateway({ port: 0, configDir: opts.configDir, storeUri, env, logDestination: sink, logLevel: 'debug' });
  let gw = await boot();
  const stack: Stack = {
    sim,
    get gw() { return gw; },
    get url() { return gw.url; },
    storeUri,
    logs: () => lines.map((l) => JSON.parse(l)),
    rawLogs: () => lines.join('\n'),
    // A token of a user of its own, the user's wallet holding the quota: how tokens are made today.
    async token(t = {}) {
      const group = t.group ?? 'default';
      const user = await gw.gateway.accounts.users.create({ name: `test-${randomBytes(6).toString('hex')}`, group }, t.quota ?? 1_000_000);
      const { key, record } = await gw.gateway.tokens.create({ group, quota: 0, user: user.id, models: t.models });
      return { key, id: record.id };
    },
    /** What a token can draw on: its user's wallet (a token of no user: its own account). */
    async balance(id) {
      const rec = await gw.gateway.tokens.byId(id);
      return gw.store.quota.balance(rec && isUserId(rec.user) ? walletOf(rec.user) : id);
    },
    async restartGateway() {
      await gw.close();
      gw = await boot();
    },
    peer: () => gatewayOn(sim, storeUri, opts),
    async close() {
      await gw.close();
    },
  };
  return stack;
}

/** The request log's records of one request id, once written (the access record is handed over as the response closes). */
export async function loggedRecords(stack: Stack, requestId: string): Promise<any[]> {
  const until = Date.now() + 3000;
  for (;;) {
    await stack.gw.gateway.requestLog!.flush();
    const found = await stack.gw.gateway.requestLog!.store.get(requestId);
    if (found.length) return found;
    if (Date.now() > until) throw new Error(`no record of ${requestId}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
