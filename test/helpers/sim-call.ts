// One request straight to a simulator (no gateway): its status, its body parsed when it is JSON, and its text.
import type { Simulator } from '../../simulator/server.js';

export interface SimInit { method?: string; headers?: Record<string, string>; body?: unknown }

export async function simCall(sim: Simulator, path: string, init: SimInit = {}): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${sim.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}
