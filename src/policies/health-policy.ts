// Policies `health` (the process answers) and `ready` (config loaded and the store reachable), for orchestrators.
import type { ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import { sendJson } from '../tasks/answer.js';

export function serveHealth(res: ServerResponse): void {
  sendJson(res, 200, { status: 'ok' });
}

export async function serveReady(g: Gateway, res: ServerResponse): Promise<void> {
  const probe = g.store.quota.balance('__readyz__');
  const timeout = new Promise<never>((_r, reject) => setTimeout(() => reject(new Error('store did not answer within 1 s')), 1000).unref());
  try {
    await Promise.race([probe, timeout]);
    sendJson(res, 200, { status: 'ready', config: g.runtime.hash, store: g.store.describe.split(' ')[0] });
  } catch (err) {
    sendJson(res, 503, { status: 'not_ready', config: g.runtime.hash, reason: (err as Error).message });
  }
}
