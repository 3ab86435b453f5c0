// Raw-HTTP helpers for the end-to-end tests: JSON posts, Shape A checks, SSE parsing, ledger and log lookups.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import OpenAI from 'openai';
import { projectRoot } from '../../src/config/load-config.js';
import type { Stack } from './stack.js';
import type { Store } from '../../src/store/store.js';
import { TokenStore } from '../../src/store/token-store.js';
import { isUserId, walletOf } from '../../src/accounts/user-store.js';

export interface RawReply { status: number; headers: Headers; text: string; json: any }

/** POSTs a body (an object is JSON-encoded, a string is sent as is) with an optional bearer key. */
export async function post(url: string, body: unknown, key?: string, headers: Record<string, string> = {}): Promise<RawReply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

export const chatUrl = (s: Stack) => `${s.url}/v1/chat/completions`;

/** Asserts the exact Shape A error: status, `{error:{message,type,param:'',code}}`, and the request id in header and message. */
export function assertShapeA(r: RawReply, status: number, code: string, type: string, messageIncludes?: string): string {
  assert.equal(r.status, status, r.text);
  assert.equal(r.headers.get('content-type'), 'application/json');
  assert.deepEqual(Object.keys(r.json), ['error']);
  assert.deepEqual(Object.keys(r.json.error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(r.json.error.code, code);
  assert.equal(r.json.error.type, type);
  assert.equal(r.json.error.param, '');
  const id = r.headers.get('x-request-id');
  assert.match(id ?? '', /^req_[0-9a-z]+$/);
  assert.ok(r.json.error.message.endsWith(`(request id: ${id})`), r.json.error.message);
  if (messageIncludes) assert.ok(r.json.error.message.includes(messageIncludes), r.json.error.message);
  return id!;
}

/** The `data:` payloads of an SSE body, in order (`[DONE]` kept as the string). */
export function sseData(text: string): string[] {
  return text.split('\n\n').filter((e) => e.trim()).map((e) => {
    const lines = e.split('\n').filter((l) => l.startsWith('data:'));
    return lines.map((l) => l.slice(l.startsWith('data: ') ? 6 : 5)).join('\n');
  });
}

export function client(stack: Stack, apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${stack.url}/v1`, maxRetries: 0, timeout: 10_000 });
}

/** Ledger entries of one request (reserve, settle or refund). */
export async function ledgerOf(stack: Stack, account: string, requestId: string) {
  return (await stack.gw.store.quota.entries(account)).filter((e) => e.request === requestId);
}

/** The access-log line of one request; it is written when the response closes, so poll for it. */
export async function logLineOf(stack: Stack, requestId: string): Promise<Record<string, any>> {
  const until = Date.now() + 3000;
  for (;;) {
    const line = stack.logs().find((l) => l.msg === 'request' && l.req_id === requestId);
    if (line) return line;
    if (Date.now() > until) throw new Error(`no access log line for ${requestId}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Quota units for usage at a price, as the contract states: ceil((prompt*in + completion*out) / 1e6). */
export function expectedCharge(price: { input_per_mtok?: number; output_per_mtok?: number; tokens?: Record<string, number> }, prompt: number, completion: number): number {
  const input = price.tokens?.input ?? price.input_per_mtok ?? 0;
  const output = price.tokens?.output ?? price.output_per_mtok ?? 0;
  return Math.ceil((prompt * input + completion * output) / 1e6);
}

export type TokenPrice = { input_per_mtok: number; output_per_mtok: number };

/**
 * A model's shipped price: the demo channels.yaml's own entry (fictional models, or an operator's margin), else the
 * vendor file that lists it (vendors/*.yaml), as the config loader merges them.
 */
export function shippedPrice(model: string): TokenPrice {
  type Shipped = { input_per_mtok?: number; output_per_mtok?: number; tokens?: Record<string, number> };
  // The base input and output rates, in either form a price may give them.
  const rates = (p: Shipped): TokenPrice => ({ input_per_mtok: p.tokens?.input ?? p.input_per_mtok ?? 0, output_per_mtok: p.tokens?.output ?? p.output_per_mtok ?? 0 });
  const own = parse(readFileSync(join(projectRoot, 'channels.yaml'), 'utf8')).models as Record<string, { price: Shipped }>;
  if (own[model]) return rates(own[model].price);
  const dir = join(projectRoot, 'vendors');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
    const vendor = parse(readFileSync(join(dir, f), 'utf8'), { merge: true }) as { models: Record<string, { price: Shipped }> };
    if (vendor.models[model]) return rates(vendor.models[model].price);
  }
  throw new Error(`no shipped price for ${model}`);
}

/**
 * The account a token's money is in: its user's wallet, once the token belongs to a user (tokens made without one in
 * a store a gateway then starts on are upgraded into users of their own); the token's own account before that.
 */
export async function moneyAccountOf(store: Store, tokenId: string): Promise<string> {
  const rec = await new TokenStore(store, 0).byId(tokenId);
  return rec && isUserId(rec.user) ? walletOf(rec.user) : tokenId;
}
