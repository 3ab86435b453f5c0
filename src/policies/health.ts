// Policies `health` (the process answers) and `ready` (config loaded and the store reachable), for orchestrators.
import { sendJson } from '../http/send-json.js';
import type { Exchange } from '../pipeline/exchange.js';

export function serveHealth(ex: Exchange): void {
  sendJson(ex.res, 200, { status: 'ok' });
}

export async function serveReady(ex: Exchange): Promise<void> {
  const { g, res } = ex;
  const probe = g.store.quota.balance('__readyz__');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_r, reject) => { timer = setTimeout(() => reject(new Error('store did not answer within 1 s')), 1000); });
  try {
    await Promise.race([probe, timeout]);
    sendJson(res, 200, { status: 'ready', config: g.runtime.hash, store: g.store.describe.split(' ')[0] });
  } catch (err) {
    sendJson(res, 503, { status: 'not_ready', config: g.runtime.hash, reason: (err as Error).message });
  } finally {
    clearTimeout(timer);
  }
}
