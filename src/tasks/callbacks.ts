// Client callbacks: on a task's state change its answer is POSTed to the URL it gave, with retries and backoff.
import type { Gateway } from '../gateway.js';
import { safePostJson } from '../transport/safe-fetch.js';
import { taskBody } from './answer.js';
import type { TaskRecord } from './task-record.js';

/** Fire and forget: delivery retries in the background (kept in memory; a restart drops pending retries). */
export function notifyChange(g: Gateway, rec: TaskRecord): void {
  if (!rec.callback) return;
  void deliver(g, rec, 1);
}

async function deliver(g: Gateway, rec: TaskRecord, attempt: number): Promise<void> {
  const cb = rec.callback!;
  const route = g.runtime.routes.find((r) => r.id === cb.route);
  const { allow_private_networks, timeout_ms, max_attempts } = g.runtime.callbacks;
  let outcome: string;
  try {
    const body = JSON.stringify(route ? await taskBody(g, route, rec, cb.base_url ?? '') : rec.id);
    const status = await safePostJson(cb.url, body, { allowPrivate: allow_private_networks, timeoutMs: timeout_ms });
    if (status >= 200 && status < 300) return;
    outcome = `HTTP ${status}`;
  } catch (err) {
    outcome = (err as Error).message;
  }
  // Only the host is logged: callback URLs often carry the client's own secrets in the query.
  const host = safeHost(cb.url);
  if (attempt >= max_attempts) {
    g.log.warn({ task_id: rec.id, host, attempts: attempt, outcome }, 'callback abandoned');
    return;
  }
  setTimeout(() => void deliver(g, rec, attempt + 1), Math.min(60_000, 1000 * 2 ** (attempt - 1))).unref();
}

const safeHost = (u: string) => { try { return new URL(u).host; } catch { return ''; } };
