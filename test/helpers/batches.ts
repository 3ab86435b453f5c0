// Batch test helpers: JSON Lines input files, the `usage=` directive, waiting on a batch, OpenAI's published prices.
import OpenAI, { toFile } from 'openai';
import type { Stack } from './stack.js';

export interface InLine { custom_id: string; method: 'POST'; url: string; body: Record<string, unknown> }

/** The usage a simulated answer reports (base64url JSON merged over the simulator's own). */
export const usage = (u: object) => Buffer.from(JSON.stringify(u)).toString('base64url');

/** A chat line whose answer reports `u`. */
export const chatLine = (id: string, model: string, u: object | undefined, extra: Record<string, unknown> = {}, text = 'hello'): InLine => ({
  custom_id: id, method: 'POST', url: '/v1/chat/completions',
  body: { model, messages: [{ role: 'user', content: `${text}${u ? ` [sim usage=${usage(u)}]` : ''}` }], ...extra },
});

export const jsonl = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

export const upload = async (ai: OpenAI, text: string, name = 'input.jsonl') => ai.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'batch' });

export const ended = (s: string) => ['completed', 'failed', 'expired', 'cancelled'].includes(s);

/** Retrieves the batch until it has ended (its output then readable). */
export async function waitBatch(ai: OpenAI, id: string, ms = 15_000): Promise<OpenAI.Batch> {
  const until = Date.now() + ms;
  for (;;) {
    const b = await ai.batches.retrieve(id);
    if (ended(b.status)) return b;
    if (Date.now() > until) throw new Error(`batch ${id} did not end: ${JSON.stringify(b)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

/** The lines of a file, parsed. */
export async function fileLines(ai: OpenAI, id: string): Promise<any[]> {
  const text = await (await ai.files.content(id)).text();
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** The poller left alone (no poll for a minute), or as fast as a test wants it. */
export const holdPolls = (stack: Stack) => Object.assign(stack.gw.gateway.runtime.tasks, { poll_base_ms: 60_000, poll_max_ms: 60_000, refresh_after_ms: 60_000 });

// OpenAI's published standard prices in USD per million tokens (developers.openai.com/api/docs/pricing, models pages;
// the same figures test/price-conformance.test.ts types in), and its Batch API's: half of each (the Batch column of the
// pricing page; gpt-6-luna's model page lists "Batch 50%").
export const STANDARD: Record<string, { input: number; cached?: number; output?: number }> = {
  'gpt-6.2-sol': { input: 2, cached: 0.1, output: 10 },
  'gpt-4o-mini': { input: 0.15, cached: 0.075, output: 0.6 },
  'text-embedding-3-small': { input: 0.02 },
};
export const BATCH_FACTOR = 0.5;

/** What OpenAI bills one successful line of a batch, in USD, from the usage its answer reports (chat, Responses or embeddings). */
export function lineUsd(model: string, u: any): number {
  const p = STANDARD[model];
  const prompt = u.prompt_tokens ?? u.input_tokens ?? 0;
  const cached = (u.prompt_tokens_details ?? u.input_tokens_details)?.cached_tokens ?? 0;
  const completion = u.completion_tokens ?? u.output_tokens ?? 0;
  return (((prompt - cached) * p.input + cached * (p.cached ?? p.input) + completion * (p.output ?? 0)) / 1e6) * BATCH_FACTOR;
}

/** The vendor's bill for an output file, in quota units (1,000 a USD), rounded up once. */
export function billUnits(model: string, outputLines: any[]): number {
  const usd = outputLines.filter((l) => l.response?.status_code === 200).reduce((n, l) => n + lineUsd(model, l.response.body.usage), 0);
  return Math.ceil(usd * 1000 - 1e-9);
}
