// The price conformance tables' machinery (test/price-conformance.test.ts): a row is a model, the request's fields, the
// usage the vendor reports in its own shape and the charge the vendor's formula gives; this sends the row through the
// gateway on the production config (the usage by the simulator's `usage=` directive), reads what the ledger reserved
// and charged, and keeps a summary. Nothing here knows a price: the expected charge is the test's.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { Stack } from './stack.js';
import { call } from './video.js';

/** How a row reaches the gateway: the route and, for chat routes, whether it streams. */
export type Via =
  | 'chat' | 'chat-stream' | 'responses' | 'responses-stream' | 'messages' | 'messages-stream' | 'gemini' | 'gemini-stream'
  | 'embeddings' | 'image' | 'image-edit' | 'gemini-image'
  | 'video' | 'sora' | 'vendork' | 'vendork-i2v' | 'alpha-text2video' | 'alpha-img2video' | 'alpha-start-end2video' | 'alpha-reference2video'
  | 'visual' | 'midjourney' | 'suno-music' | 'suno-lyrics';

export interface Row {
  model: string;
  via: Via;
  /** The request's own fields (service tier, mode, resolution, seconds, …) besides the model and the prompt. */
  body?: Record<string, unknown>;
  /** What the vendor reports, in its own shape (chat-like rows; tasks report what the vendor's API reports). */
  usage?: Record<string, unknown>;
  /** The dimensions and token classes the row exercises, for the summary. */
  dims: string[];
  /** The vendor's charge in USD, from its published formula. */
  usd: number;
  /** What the vendor itself reports it billed, in units (Kling's units, Vidu's credits), where it reports one. */
  vendorUnits?: number;
  /** Fields (dotted paths) the vendor must have received with these values: a priced option must reach the vendor. */
  sent?: Record<string, unknown>;
  /** Prompt tokens the body should weigh (4 bytes a token), so the reservation is what a real prompt of that size gets. */
  promptTokens?: number;
}

/** Units the gateway takes for a charge in USD: 1,000 a dollar, rounded up to a whole unit. */
export const units = (usd: number) => Math.max(0, Math.ceil(usd * 1000 - 1e-9));

export const usage64 = (u: object) => Buffer.from(JSON.stringify(u)).toString('base64url');

/** `n` tokens' worth of prompt at the gateway's default estimate (4 bytes a token). */
const filler = (n: number) => (n > 0 ? 'pad '.repeat(n) : '');

const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000400000004008060000', 'hex');

/** Sends one row; `marker` makes its upstream request findable in the simulator's log. */
export async function send(stack: Stack, key: string, row: Row, marker: string) {
  const directive = row.usage ? ` [sim usage=${usage64(row.usage)}]` : ' [sim polls=1]';
  // The marker first: the simulator's log keeps a long string's first 1,024 characters.
  const text = `conformance ${marker} ${filler(Math.min(row.promptTokens ?? 0, 400_000))}${directive}`;
  const b = row.body ?? {};
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => call(stack, key, 'POST', path, body, headers);
  const messages = [{ role: 'user', content: text }];
  switch (row.via) {
    case 'chat': return post('/v1/chat/completions', { model: row.model, messages, ...b });
    case 'chat-stream': return post('/v1/chat/completions', { model: row.model, messages, stream: true, stream_options: { include_usage: true }, ...b });
    case 'responses': return post('/v1/responses', { model: row.model, input: text, ...b });
    case 'responses-stream': return post('/v1/responses', { model: row.model, input: text, stream: true, ...b });
    case 'messages': return post('/v1/messages', { model: row.model, max_tokens: 4096, messages, ...b }, { 'anthropic-version': '2023-06-01' });
    case 'messages-stream': return post('/v1/messages', { model: row.model, max_tokens: 4096, messages, stream: true, ...b }, { 'anthropic-version': '2023-06-01' });
    case 'gemini':
    case 'gemini-image':
      return post(`/v1beta/models/${row.model}:generateContent`, { contents: [{ role: 'user', parts: [{ text }] }], ...b });
    case 'gemini-stream': return post(`/v1beta/models/${row.model}:streamGenerateContent?alt=sse`, { contents: [{ role: 'user', parts: [{ text }] }], ...b });
    case 'embeddings': return post('/v1/embeddings', { model: row.model, input: text, ...b });
    case 'image': return post('/v1/images/generations', { model: row.model, prompt: text, ...b });
    case 'image-edit': {
      const form = new FormData();
      form.append('model', row.model);
      form.append('prompt', text);
      for (const [k, v] of Object.entries(b)) form.append(k, String(v));
      form.append('image[]', new Blob([png], { type: 'image/png' }), 'a.png');
      form.append('image[]', new Blob([png], { type: 'image/png' }), 'b.png');
      const res = await fetch(`${stack.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      const t = await res.text();
      return { status: res.status, text: t, json: undefined, headers: res.headers };
    }
    case 'video': return post('/v1/video/generations', { model: row.model, prompt: text, ...b });
    case 'sora': return post('/v1/videos', { model: row.model, prompt: text, ...b });
    case 'vendork': return post('/vendork/v1/videos/text2video', { model_name: row.model, prompt: text, ...b });
    case 'vendork-i2v': return post('/vendork/v1/videos/image2video', { model_name: row.model, prompt: text, image: 'https://example.com/first.png', ...b });
    case 'alpha-text2video':
    case 'alpha-img2video':
    case 'alpha-start-end2video':
    case 'alpha-reference2video':
      return post(`/alpha/ent/v2/${row.via.slice('alpha-'.length)}`, { model: row.model, prompt: text, ...b });
    case 'visual': return post('/art-official?Action=CVSync2AsyncSubmitTask&Version=2022-08-31', { req_key: row.model, prompt: text, ...b });
    case 'midjourney': return post('/art/submit/imagine', { prompt: text, mode: row.model.slice('art-'.length).toUpperCase(), ...b });
    case 'suno-music': return post('/music/submit/music', { prompt: text, ...b });
    case 'suno-lyrics': return post('/music/submit/lyrics', { prompt: text, ...b });
  }
}

export interface Billed { request: string; kind: string; reserved: number; charged: number; uncharged: number; vendorCharged: number | null }

/** A fresh token's one request, once its reservation is closed on the ledger (a task's when the vendor finished it). */
export async function closed(stack: Stack, tokenId: string, ms = 15_000): Promise<Billed> {
  const until = Date.now() + ms;
  for (;;) {
    const entries = (await stack.gw.store.quota.entries(tokenId)).filter((e) => e.kind !== 'topup');
    const close = entries.find((e) => e.kind !== 'reserve');
    if (close) {
      const reserve = entries.find((e) => e.kind === 'reserve' && e.request === close.request);
      const reserved = reserve?.amount ?? 0;
      return { request: close.request, kind: close.kind, reserved, charged: reserved + close.amount, uncharged: close.uncharged ?? 0, vendorCharged: close.vendor_charged ?? null };
    }
    if (Date.now() > until) throw new Error(`nothing closed on the ledger: ${JSON.stringify(entries)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The body the simulator received for the row carrying `marker`. */
export function upstreamBody(stack: Stack, marker: string): Record<string, unknown> | undefined {
  const r = stack.sim.control.requests().filter((q) => q.method === 'POST' && JSON.stringify(q.body ?? '').includes(marker)).at(0);
  return r?.body as Record<string, unknown> | undefined;
}

const at = (o: unknown, path: string) => path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), o);

export interface Outcome { vendor: string; row: Row; name: string; want: number; got?: Billed; error?: string }

/** Every row's outcome, for the summary the file prints. */
export const outcomes: Outcome[] = [];

let serial = 0;

/** A row's name in the test report. */
export const rowName = (row: Row) => `${row.model} via ${row.via}: ${row.dims.join(', ')}`;

/** One subtest per row, `concurrency` at a time under the vendor's test. */
export function runTable(t: TestContext, stack: Stack, vendor: string, rows: Row[]): Promise<unknown> {
  return Promise.all(rows.map((row) => t.test(rowName(row), () => runRow(stack, vendor, row))));
}

async function runRow(stack: Stack, vendor: string, row: Row): Promise<void> {
  const want = units(row.usd);
  const outcome: Outcome = { vendor, row, name: rowName(row), want };
  outcomes.push(outcome);
  const marker = `row-${++serial}-${Date.now().toString(36)}`;
  try {
    const { key, id } = await stack.token({ quota: 100_000_000 });
    const res = await send(stack, key, row, marker);
    assert.equal(res.status, 200, res.text.slice(0, 500));
    // Read at once: the simulator keeps its last 200 requests, and a task's polls follow.
    const upstream = row.sent && upstreamBody(stack, marker);
    const got = await closed(stack, id);
    outcome.got = got;
    const lines = stack.logs().find((l) => l.req_id === got.request)?.charge_lines;
    const explain = `${row.model} ${JSON.stringify(row.body ?? {})} usage ${JSON.stringify(row.usage ?? null)}: vendor formula $${row.usd.toFixed(6)} = ${want} units; gateway reserved ${got.reserved}, charged ${got.charged} (uncharged ${got.uncharged})${lines ? `, lines ${JSON.stringify(lines)}` : ''}`;
    assert.equal(got.kind, 'settle', explain);
    assert.ok(got.reserved >= got.charged, `the reservation covers the charge: ${explain}`);
    assert.equal(got.uncharged, 0, `the charge was not capped at the reservation: ${explain}`);
    assert.equal(got.charged, want, explain);
    if (row.vendorUnits !== undefined) assert.equal(got.vendorCharged, row.vendorUnits, `what the vendor reported billing: ${explain}`);
    if (row.sent) {
      const fields = JSON.stringify(Object.fromEntries(Object.entries(upstream ?? {}).filter(([k]) => !['messages', 'contents', 'input', 'prompt'].includes(k))));
      for (const [path, value] of Object.entries(row.sent)) {
        assert.deepEqual(at(upstream, path), value, `the price chose ${path}=${JSON.stringify(value)} but the vendor received ${JSON.stringify(at(upstream, path))} (its request's other fields: ${fields}): ${explain}`);
      }
    }
  } catch (e) {
    outcome.error = (e as Error).message.split('\n')[0];
    throw e;
  }
}

/** The Markdown summary: per vendor its rows, the models and dimensions covered; then every row that failed. */
export function summary(): string {
  const vendors = [...new Set(outcomes.map((o) => o.vendor))];
  const out = ['', '| vendor | rows | passed | models covered | dimensions covered |', '|---|---|---|---|---|'];
  for (const v of vendors) {
    const mine = outcomes.filter((o) => o.vendor === v);
    const models = [...new Set(mine.map((o) => o.row.model))];
    const dims = [...new Set(mine.flatMap((o) => [...o.row.dims, o.row.via]))];
    out.push(`| ${v} | ${mine.length} | ${mine.filter((o) => !o.error && o.got).length} | ${models.join(', ')} | ${dims.join(', ')} |`);
  }
  const failed = outcomes.filter((o) => o.error);
  if (failed.length) {
    out.push('', '| failed row | vendor formula (units) | gateway charged | reserved | why |', '|---|---|---|---|---|');
    for (const o of failed) out.push(`| ${o.vendor}: ${o.name} ${JSON.stringify(o.row.body ?? {})} | ${o.want} | ${o.got?.charged ?? '—'} | ${o.got?.reserved ?? '—'} | ${o.error?.slice(0, 160).replace(/\|/g, '/')} |`);
  }
  return out.join('\n');
}
