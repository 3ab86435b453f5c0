// POST /v1/audio/transcriptions and /v1/audio/translations. The upload is read and checked (stt-request.ts), its length
// measured (probe.ts), and the answer rendered in the asked format; the gpt-4o models stream SSE when `stream=true`:
// one `transcript.text.delta` per word (diarized_json: one `transcript.text.segment` per segment), then
// `transcript.text.done` with the text and usage, then `data: [DONE]`, as api.openai.com sends them.
import { type Directives, intDirective, parseDirectives } from '../directives.js';
import { type Ctx, type Route, openaiAuthorized, sendJson, sleep } from '../http.js';
import { playSteps, type Step } from '../stream-steps.js';
import { overriddenUsage, usageDirective } from '../usage-directive.js';
import { directedFailure, sendProblem } from './openai-errors.js';
import { recordAudio } from './records.js';
import { type SttRequest, readSttRequest } from './stt-request.js';
import {
  type Transcript, defaultText, deltasOf, diarizedSegments, languageName, logprobsOf, srt, sttUsage, vtt, whisperSegments, whisperWords,
} from './transcript.js';

export const openaiTranscriptions: Route = { method: 'POST', path: '/v1/audio/transcriptions', handle: (ctx) => handle(ctx, false) };
export const openaiTranslations: Route = { method: 'POST', path: '/v1/audio/translations', handle: (ctx) => handle(ctx, true) };

async function handle(ctx: Ctx, translate: boolean): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const r = await readSttRequest(ctx, translate);
  if ('status' in r) return sendProblem(ctx, r);
  recordAudio(ctx.control, {
    endpoint: translate ? 'translations' : 'transcriptions', model: r.model, responseFormat: r.format, stream: r.stream,
    seconds: r.seconds, fileName: r.fileName, fileBytes: r.fileBytes.length, container: r.probe?.container ?? null,
  });
  const d = parseDirectives(r.prompt ?? '');
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return;
  if (directedFailure(ctx, d)) return;
  const t: Transcript = { text: textOf(r, d), seconds: r.seconds, language: translate ? 'english' : languageName(r.language) };
  const usage = translate ? undefined : usageOf(r, t, d);
  if (r.stream) return stream(ctx, r, t, usage, d);
  answer(ctx, r, t, usage);
}

/** `[sim text=B64]` (base64url of UTF-8) in the prompt, else "Transcribed N seconds of audio." */
function textOf(r: SttRequest, d: Directives): string {
  return d.text ? Buffer.from(d.text, 'base64url').toString('utf8') : defaultText(r.seconds, r.translate);
}

function usageOf(r: SttRequest, t: Transcript, d: Directives): Record<string, unknown> {
  return overriddenUsage(sttUsage(r.family, t, r.prompt), usageDirective(d), r.family === 'whisper' ? undefined : { key: 'total_tokens', parts: ['input_tokens', 'output_tokens'] });
}

function answer(ctx: Ctx, r: SttRequest, t: Transcript, usage: Record<string, unknown> | undefined): void {
  const withUsage = usage ? { usage } : {};
  switch (r.format) {
    case 'text':
      return plain(ctx, `${t.text}\n`);
    case 'srt':
      return plain(ctx, srt(whisperSegments(t, r.temperature)));
    case 'vtt':
      return plain(ctx, vtt(whisperSegments(t, r.temperature)));
    case 'verbose_json':
      return sendJson(ctx.res, 200, verbose(r, t, withUsage));
    case 'diarized_json':
      return sendJson(ctx.res, 200, { task: 'transcribe', duration: t.seconds, text: t.text, segments: diarizedSegments(t, r.knownNames), ...withUsage });
    default:
      return sendJson(ctx.res, 200, { text: t.text, ...(r.logprobs ? { logprobs: logprobsOf(deltasOf(t.text)) } : {}), ...withUsage });
  }
}

/** Whisper's verbose_json: segments unless only word timings were asked for, words when asked for. */
function verbose(r: SttRequest, t: Transcript, withUsage: object) {
  const g = r.granularities;
  return {
    task: r.translate ? 'translate' : 'transcribe', language: t.language, duration: Math.fround(t.seconds), text: t.text,
    ...(g.includes('segment') ? { segments: whisperSegments(t, r.temperature) } : {}),
    ...(g.includes('word') && !r.translate ? { words: whisperWords(t) } : {}),
    ...withUsage,
  };
}

function plain(ctx: Ctx, body: string): void {
  ctx.res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  ctx.res.end(body);
}

async function stream(ctx: Ctx, r: SttRequest, t: Transcript, usage: Record<string, unknown> | undefined, d: Directives): Promise<void> {
  const deltas = deltasOf(t.text);
  const content: Step[] = r.format === 'diarized_json'
    ? diarizedSegments(t, r.knownNames).map((s) => event(s))
    : deltas.map((delta) => event({ type: 'transcript.text.delta', delta, ...(r.logprobs ? { logprobs: logprobsOf([delta]) } : {}), ...(r.family === 'diarize' ? { segment_id: 'seg_0' } : {}) }));
  const cutAfter = intDirective(d, 'cut_after');
  const steps = cutAfter !== undefined && cutAfter < content.length
    ? [...content.slice(0, cutAfter), { cut: true } as Step]
    : [...content, event({ type: 'transcript.text.done', text: t.text, ...(r.logprobs ? { logprobs: logprobsOf(deltas) } : {}), usage }), { data: 'data: [DONE]\n\n' }];
  await playSteps(ctx, steps, { contentType: 'text/event-stream; charset=utf-8', intervalMs: intDirective(d, 'interval_ms', 0), complete: (last) => last === 'data: [DONE]\n\n' });
}

function event(payload: unknown): Step {
  return { data: `data: ${JSON.stringify(payload)}\n\n` };
}

