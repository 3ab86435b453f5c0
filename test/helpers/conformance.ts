// The price conformance tables' machinery (test/price-conformance.test.ts): a row is a model, the request's fields, the
// usage the vendor reports in its own shape and the charge the vendor's formula gives; this sends the row through the
// gateway on the production config (the usage by the simulator's `usage=` directive), reads what the ledger reserved
// and charged, and keeps a summary. Nothing here knows a price: the expected charge is the test's.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import WebSocket from 'ws';
import { wavBytes } from '../../simulator/server.js';
import type { Stack } from './stack.js';
import { call } from './video.js';

/** How a row reaches the gateway: the route and, for chat routes, whether it streams. */
export type Via =
  | 'chat' | 'chat-stream' | 'responses' | 'responses-stream' | 'messages' | 'messages-stream' | 'gemini' | 'gemini-stream'
  | 'embeddings' | 'image' | 'image-edit' | 'gemini-image'
  | 'video' | 'sora' | 'vendork' | 'vendork-i2v' | 'alpha-text2video' | 'alpha-img2video' | 'alpha-start-end2video' | 'alpha-reference2video'
  | 'visual' | 'midjourney' | 'suno-music' | 'suno-lyrics'
  | 'speech' | 'transcription' | 'translation' | 'realtime' | 'rerank' | 'moderation';

export interface Row {
  model: string;
  via: Via;
  /**
   * The request's own fields (service tier, mode, resolution, seconds, …) besides the model and the prompt. Speech: a
   * fixed `input` replaces the marked prompt (a per-character price needs a known length). Transcription and
   * translation: `seconds` (and `rate`, default 16 kHz) make the WAV uploaded; the others are sent as form fields.
   */
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

/** A WAV upload of `seconds` at `rate`, made once per size (a 1,400-second file is 22 MB). */
const wavs = new Map<string, Buffer>();
const wav = (seconds: number, rate: number) => {
  const k = `${seconds}@${rate}`;
  if (!wavs.has(k)) wavs.set(k, wavBytes(seconds, rate));
  return wavs.get(k)!;
};

type Sent = { status: number; text: string; json: unknown; headers: Headers };

/**
 * A transcription or translation: a real WAV of `body.seconds` as `file` (the gateway prices it by the length its
 * header gives), the other body fields as form fields, the usage directive as the `prompt` (where the simulator reads
 * directives; alone, since gpt-4o-transcribe-diarize takes no prompt but one made of directives).
 */
async function upload(stack: Stack, key: string, path: string, row: Row): Promise<Sent> {
  const { seconds, rate, ...fields } = row.body ?? {};
  const form = new FormData();
  form.append('model', row.model);
  for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
  if (row.usage) form.append('prompt', `[sim usage=${usage64(row.usage)}]`);
  form.append('file', new Blob([new Uint8Array(wav(Number(seconds ?? 10), Number(rate ?? 16_000)))], { type: 'audio/wav' }), 'speech.wav');
  const res = await fetch(`${stack.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const text = await res.text();
  return { status: res.status, text, json: undefined, headers: res.headers };
}

/**
 * A Realtime session: opened on the WebSocket with the key; then, `body.responses` times (default once), the user's
 * text added (the usage directive in it: the simulator reads directives from the last user text) and a response asked
 * and awaited; then closed. With `body.transcribe` (a model) the session first names it for input transcription (no
 * turn detection), and before the first response `body.audioSeconds` of 24 kHz PCM are appended and committed and
 * their transcription awaited. 200 when every response completed; else the status the upgrade was refused with, or
 * 502 with what went wrong.
 */
function realtime(stack: Stack, key: string, row: Row, text: string): Promise<Sent> {
  const url = `${stack.url.replace(/^http/, 'ws')}/v1/realtime?model=${encodeURIComponent(row.model)}`;
  const b = row.body ?? {};
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } });
    const seen: string[] = [];
    const sendEvent = (e: object) => ws.send(JSON.stringify(e));
    let left = Number(b.responses ?? 1);
    let result: Sent | undefined;
    const say = () => sendEvent({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
    const turn = () => {
      say();
      sendEvent({ type: 'response.create' });
    };
    const finish = (status: number, why: string) => {
      result ??= { status, text: why, json: undefined, headers: new Headers() };
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
    };
    const timer = setTimeout(() => finish(504, `no response.done in 15 s; events: ${seen.join(', ')}`), 15_000);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c; });
      res.on('end', () => { clearTimeout(timer); result = { status: res.statusCode ?? 0, text: body, json: undefined, headers: new Headers() }; resolve(result); });
    });
    ws.on('message', (data) => {
      const e = JSON.parse(String(data)) as { type: string; response?: { status?: string }; error?: unknown };
      seen.push(e.type);
      if (e.type === 'session.created') {
        if (!b.transcribe) return turn();
        sendEvent({ type: 'session.update', session: { type: 'realtime', audio: { input: { transcription: { model: b.transcribe }, turn_detection: null } } } });
      } else if (e.type === 'session.updated') {
        say();
        sendEvent({ type: 'input_audio_buffer.append', audio: Buffer.alloc(Math.round(Number(b.audioSeconds ?? 1) * 48_000)).toString('base64') });
        sendEvent({ type: 'input_audio_buffer.commit' });
      } else if (e.type === 'conversation.item.input_audio_transcription.completed') {
        sendEvent({ type: 'response.create' });
      } else if (e.type === 'error') {
        finish(502, `error event: ${JSON.stringify(e.error)}`);
      } else if (e.type === 'response.done') {
        if (e.response?.status !== 'completed') finish(502, `response.done ${JSON.stringify(e.response)}`);
        else if (--left > 0) turn();
        else finish(200, '');
      }
    });
    ws.on('error', (err) => finish(502, `socket error: ${err.message}`));
    ws.once('close', () => { clearTimeout(timer); resolve(result ?? { status: 502, text: `closed before response.done; events: ${seen.join(', ')}`, json: undefined, headers: new Headers() }); });
  });
}

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
    case 'speech': return post('/v1/audio/speech', { model: row.model, input: text, voice: row.model.startsWith('gemini') ? 'Kore' : 'alloy', ...b });
    case 'transcription': return upload(stack, key, '/v1/audio/transcriptions', row);
    case 'translation': return upload(stack, key, '/v1/audio/translations', row);
    case 'realtime': return realtime(stack, key, row, text);
    // The text is the query (directives and all); the documents are the row's.
    case 'rerank': return post('/v1/rerank', { model: row.model, query: text, documents: ['a document'], ...b });
    case 'moderation': return post('/v1/moderations', { model: row.model, input: text, ...b });
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

/**
 * A Realtime session's money, once it is over: a hold per response (and per input transcription), each settled at
 * that charge (with a top-up entry of its own when it cost more than its hold) and the next hold taken, the last hold
 * refunded at the close. The charge is the settles' sum, the reservation what the settled holds (and top-ups) held;
 * the request is the session's (a hold's id is `<session>:<n>`).
 */
export async function sessionClosed(stack: Stack, tokenId: string, ms = 15_000): Promise<Billed> {
  const until = Date.now() + ms;
  for (;;) {
    const entries = (await stack.gw.store.quota.entries(tokenId)).filter((e) => e.kind !== 'topup');
    const reserves = entries.filter((e) => e.kind === 'reserve');
    const closes = entries.filter((e) => e.kind !== 'reserve');
    const settles = closes.filter((e) => e.kind === 'settle');
    // Over once the last hold is refunded (the session's close) and nothing is open: a settle alone may be a response's
    // hold settled before its top-up or the next hold are written.
    const over = closes.some((c) => c.kind === 'refund') && reserves.every((r) => closes.some((c) => c.request === r.request));
    if (settles.length && over) {
      const held = (request: string) => reserves.find((r) => r.request === request)!.amount;
      const first = settles[0].request;
      return {
        request: first.slice(0, first.lastIndexOf(':')), kind: 'settle',
        reserved: settles.reduce((n, s) => n + held(s.request), 0),
        charged: settles.reduce((n, s) => n + held(s.request) + s.amount, 0),
        uncharged: settles.reduce((n, s) => n + (s.uncharged ?? 0), 0), vendorCharged: null,
      };
    }
    if (Date.now() > until) throw new Error(`the session did not close on the ledger: ${JSON.stringify(entries)}`);
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
    const got = row.via === 'realtime' ? await sessionClosed(stack, id) : await closed(stack, id);
    outcome.got = got;
    // A session's record is written once its money is settled: give it a moment.
    for (let i = 0; row.via === 'realtime' && i < 40 && !stack.logs().some((l) => l.req_id === got.request && l.charge_lines); i++) await new Promise((r) => setTimeout(r, 25));
    const lines = stack.logs().find((l) => l.req_id === got.request && l.charge_lines)?.charge_lines;
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
