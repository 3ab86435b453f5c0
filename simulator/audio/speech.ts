// POST /v1/audio/speech: OpenAI's text-to-speech. Real audio files of the asked format (see formats.ts), streamed in
// ~100 ms chunks with chunked transfer encoding, or as `speech.audio.delta` SSE events ending with `speech.audio.done`
// (usage) and `data: [DONE]`, as api.openai.com sends them.
import { type Directives, intDirective, parseDirectives } from '../directives.js';
import { type Ctx, type Route, openaiAuthorized, sleep } from '../http.js';
import { playSteps, type Step } from '../stream-steps.js';
import { overriddenUsage, usageDirective } from '../usage-directive.js';
import { playChunks } from './chunk-player.js';
import { AUDIO_CONTENT_TYPES, SPEECH_FORMATS, type SpeechFormat, speechChunks } from './formats.js';
import { type AudioProblem, BAD_JSON, directedFailure, invalidValue, missing, notFound, problem, sendProblem } from './openai-errors.js';
import { recordAudio } from './records.js';

export const SPEECH_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];
const FIELDS = ['model', 'input', 'voice', 'instructions', 'response_format', 'speed', 'stream_format'];
const MAX_INPUT = 4096;
/**
 * gpt-4o-mini-tts bills audio output tokens; OpenAI publishes no per-second figure for TTS. 20 a second is its realtime
 * rule for assistant audio (1 token per 50 ms, developers.openai.com/api/docs/guides/realtime-costs) and matches the
 * price page's estimate ($12 / 1M audio tokens ≈ $0.015 a minute → 20.8 a second).
 */
export const TTS_AUDIO_TOKENS_PER_SECOND = 20;
const CHARS_PER_SECOND = 15;
const DEFAULT_INTERVAL_MS = 10;

interface SpeechRequest {
  model: string;
  input: string;
  voice: unknown;
  instructions?: string;
  response_format: SpeechFormat;
  speed: number;
  sse: boolean;
}

export const openaiSpeech: Route = { method: 'POST', path: '/v1/audio/speech', handle };

async function handle(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const parsed = parse(ctx.raw);
  if ('status' in parsed) return sendProblem(ctx, parsed);
  const d = parseDirectives(parsed.input);
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return;
  if (directedFailure(ctx, d)) return;
  const seconds = speechSeconds(parsed, d);
  recordAudio(ctx.control, {
    endpoint: 'speech', model: parsed.model, responseFormat: parsed.response_format, stream: parsed.sse, seconds,
    fileName: null, fileBytes: null, container: null,
  });
  const chunks = speechChunks(parsed.response_format, seconds);
  const intervalMs = intDirective(d, 'interval_ms', DEFAULT_INTERVAL_MS);
  const cutAfter = intDirective(d, 'cut_after');
  if (!parsed.sse) return playChunks(ctx, { contentType: AUDIO_CONTENT_TYPES[parsed.response_format], chunks, intervalMs, cutAfter });
  const steps: Step[] = chunks.map((c) => event({ type: 'speech.audio.delta', audio: c.toString('base64') }));
  if (cutAfter !== undefined && cutAfter < steps.length) steps.splice(cutAfter, steps.length, { cut: true });
  else steps.push(event({ type: 'speech.audio.done', usage: speechUsage(parsed, seconds, d) }), { data: 'data: [DONE]\n\n' });
  await playSteps(ctx, steps, { contentType: 'text/event-stream; charset=utf-8', intervalMs, complete: (last) => last === 'data: [DONE]\n\n' });
}

function event(payload: unknown): Step {
  return { data: `data: ${JSON.stringify(payload)}\n\n` };
}

/** `[sim seconds=N]`, else 15 characters a second (directives left out) at the asked speed, at least one second. */
export function speechSeconds(r: Pick<SpeechRequest, 'input' | 'speed'>, d: Directives): number {
  const asked = Number(d.seconds);
  if (d.seconds !== undefined && Number.isFinite(asked) && asked > 0) return asked;
  const chars = r.input.replace(/\[sim\s[^\]]*\]/g, '').trim().length;
  return Math.max(1, Math.ceil(chars / CHARS_PER_SECOND / r.speed));
}

const words = (s: string | undefined): number => (s ?? '').split(/\s+/).filter(Boolean).length;

/** Words of input and instructions in; audio seconds × 20 out; `[sim usage=B64]` merged over it. */
function speechUsage(r: SpeechRequest, seconds: number, d: Directives) {
  const input = words(r.input) + words(r.instructions);
  const output = Math.ceil(seconds * TTS_AUDIO_TOKENS_PER_SECOND);
  const usage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
  return overriddenUsage(usage, usageDirective(d), { key: 'total_tokens', parts: ['input_tokens', 'output_tokens'] });
}


const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(raw: string): SpeechRequest | AudioProblem {
  let b: unknown;
  try {
    b = JSON.parse(raw);
  } catch {
    return BAD_JSON;
  }
  if (!isObject(b)) return problem('Invalid type for request body: expected an object.', null, 'invalid_type');
  return validate(b);
}

function validate(b: Record<string, unknown>): SpeechRequest | AudioProblem {
  const unknown = Object.keys(b).find((k) => !FIELDS.includes(k));
  if (unknown) return problem(`Unrecognized request argument supplied: ${unknown}`);
  if (typeof b.model !== 'string' || b.model === '') return problem('you must provide a model parameter', 'model');
  if (b.input === undefined) return missing('input');
  if (typeof b.input !== 'string') return problem("Invalid type for 'input': expected a string, but got a non-string instead.", 'input', 'invalid_type');
  if (b.input.length > MAX_INPUT) return tooLong('input', b.input.length);
  if (b.voice === undefined) return missing('voice');
  const voiceProblem = checkVoice(b.voice);
  if (voiceProblem) return voiceProblem;
  if (b.instructions !== undefined && typeof b.instructions !== 'string') return problem("Invalid type for 'instructions': expected a string.", 'instructions', 'invalid_type');
  if (typeof b.instructions === 'string' && b.instructions.length > MAX_INPUT) return tooLong('instructions', b.instructions.length);
  const format = b.response_format ?? 'mp3';
  if (!SPEECH_FORMATS.includes(format as SpeechFormat)) return invalidValue('response_format', format, SPEECH_FORMATS);
  const speed = b.speed ?? 1;
  const speedProblem = checkSpeed(speed);
  if (speedProblem) return speedProblem;
  const streamFormat = b.stream_format ?? 'audio';
  if (streamFormat !== 'audio' && streamFormat !== 'sse') return invalidValue('stream_format', streamFormat, ['sse', 'audio']);
  if (b.model.startsWith('missing-')) return notFound(b.model);
  if (streamFormat === 'sse' && /^tts-1(-hd)?(-\d|$)/.test(b.model)) {
    return problem(`stream_format 'sse' is not supported for model '${b.model}'. Use 'audio' instead.`, 'stream_format', 'unsupported_value');
  }
  return {
    model: b.model, input: b.input, voice: b.voice, instructions: b.instructions as string | undefined,
    response_format: format as SpeechFormat, speed: speed as number, sse: streamFormat === 'sse',
  };
}

function tooLong(param: string, length: number): AudioProblem {
  return problem(`Invalid '${param}': string too long. Expected a string with maximum length ${MAX_INPUT}, but got a string with length ${length} instead.`, param, 'string_above_max_length');
}

/** A built-in voice name, or a custom voice `{id}`. */
function checkVoice(v: unknown): AudioProblem | undefined {
  if (isObject(v)) return typeof v.id === 'string' && v.id !== '' ? undefined : missing('voice.id');
  if (typeof v !== 'string') return problem("Invalid type for 'voice': expected one of a string or an object.", 'voice', 'invalid_type');
  return SPEECH_VOICES.includes(v) ? undefined : invalidValue('voice', v, SPEECH_VOICES);
}

function checkSpeed(v: unknown): AudioProblem | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return problem("Invalid type for 'speed': expected a decimal, but got a string instead.", 'speed', 'invalid_type');
  if (v < 0.25) return problem(`Invalid 'speed': decimal below minimum value. Expected a value >= 0.25, but got ${v} instead.`, 'speed', 'decimal_below_min_value');
  if (v > 4) return problem(`Invalid 'speed': decimal above maximum value. Expected a value <= 4, but got ${v} instead.`, 'speed', 'decimal_above_max_value');
  return undefined;
}
