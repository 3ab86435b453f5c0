// Helpers for task tests: fast poller settings, JSON calls, waiting for a task to finish.
import type { Stack } from './stack.js';

/** Makes the poller and inline refresh quick enough for tests (the config's values suit production). */
export function fastTasks(stack: Stack): void {
  Object.assign(stack.gw.gateway.runtime.tasks, { poll_interval_ms: 20, poll_base_ms: 20, poll_max_ms: 80, refresh_after_ms: 0 });
}

export async function call(stack: Stack, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text, headers: res.headers };
}

/** Queries until the task is final; returns the last answer. */
export async function waitFinal(stack: Stack, key: string, path: string, isFinal = (j: any) => ['completed', 'failed'].includes(j?.status), ms = 10_000) {
  const until = Date.now() + ms;
  for (;;) {
    const r = await call(stack, key, 'GET', path);
    if (r.status !== 200) throw new Error(`query ${path} answered ${r.status}: ${r.text}`);
    if (isFinal(r.json)) return r.json;
    if (Date.now() > until) throw new Error(`task did not finish: ${r.text}`);
    await new Promise((res) => setTimeout(res, 30));
  }
}

export const ledgerKinds = async (stack: Stack, tokenId: string, request: string) =>
  (await stack.gw.store.quota.entries(tokenId)).filter((e) => e.request === request).map((e) => `${e.kind}:${e.amount}`);
