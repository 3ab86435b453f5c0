// Helpers for the Messages dialect tests: the official Anthropic client on the gateway, named SSE events, the
// shipped prices, and a one-request ledger check.
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import type { LoggedRequest } from '../../simulator/control.js';
import { eventually, type Stack } from './stack.js';
import { expectedCharge, ledgerOf, shippedPrice } from './api.js';

export type Price = { input_per_mtok: number; output_per_mtok: number };

/**
 * The client with the gateway's key as `x-api-key` (how Anthropic's own API takes it) or, as this SDK sends an
 * `apiKey` by default, as `Authorization: Bearer`.
 */
export function anthropic(stack: Stack, key: string, via: 'x-api-key' | 'bearer' = 'x-api-key'): Anthropic {
  const auth = via === 'bearer' ? { apiKey: key } : { apiKey: key, defaultHeaders: { authorization: null, 'x-api-key': key } };
  return new Anthropic({ ...auth, baseURL: stack.url, maxRetries: 0, timeout: 10_000 });
}

export const lastUpstream = (stack: Stack): LoggedRequest => {
  const r = stack.sim.control.requests().filter((q) => !q.path.startsWith('/_sim')).at(-1);
  assert.ok(r, 'the simulator received no request');
  return r;
};

export const priceOf = (model: string): Price => shippedPrice(model);

export interface NamedEvent { event?: string; data: any }

/** A raw streamed POST /v1/messages: its events (name and parsed data) and the gateway's request id. */
export async function messagesSse(stack: Stack, key: string, body: unknown): Promise<{ events: NamedEvent[]; id: string }> {
  const res = await fetch(`${stack.url}/v1/messages`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const events = (await res.text()).split('\n\n').filter((e) => e.trim()).map((block) => {
    const lines = block.split('\n');
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    return { event, data: JSON.parse(data) };
  });
  return { events, id: res.headers.get('x-request-id')! };
}

/** One reserve, one settle, and the balance moved by exactly the price of the usage. */
export async function billedOnce(stack: Stack, account: string, requestId: string, before: number, price: Price, prompt: number, completion: number): Promise<void> {
  await eventually(async () => (await ledgerOf(stack, account, requestId)).length >= 2);
  const entries = await ledgerOf(stack, account, requestId);
  assert.deepEqual(entries.map((e) => e.kind), ['reserve', 'settle']);
  const charged = expectedCharge(price, prompt, completion);
  assert.ok(charged > 0);
  await eventually(async () => before - (await stack.balance(account))! === charged);
}
