// Gemini text-to-speech on generateContent / streamGenerateContent (models named `…-tts…`: gemini-2.5-flash-preview-tts,
// gemini-2.5-pro-preview-tts, gemini-3.1-flash-tts-preview, gemini-3.8-flash-tts, gemini-3.8-flash-lite-tts). Text in,
// audio out: one inlineData part of 16-bit little-endian mono PCM at 24 kHz (`audio/L16;codec=pcm;rate=24000`), billed
// at Gemini's 32 tokens per second of audio. Streaming sends the PCM in slices, usageMetadata on every chunk (the audio
// so far), the last chunk with finishReason STOP and the final figures, as the chat streams do.
import { type Directives, intDirective, parseDirectives } from '../directives.js';
import { type Ctx, randomId, sendJson, sleep } from '../http.js';
import { pcmBytes } from '../audio/formats.js';
import { recordAudio } from '../audio/records.js';
import { playSteps, type Step } from '../stream-steps.js';
import { usageDirective } from '../usage-directive.js';
import { type Json, isObject, parseJson, pathParams, route } from '../video/common.js';
import { geminiAuthorized, geminiError, geminiFail as fail } from './gemini-common.js';
import { finalGeminiUsage } from './gemini-chat.js';

export const TTS_MIME = 'audio/L16;codec=pcm;rate=24000';
/** "Gemini represents each second of audio as 32 tokens" (ai.google.dev token docs); the TTS output is billed alike. */
export const GEMINI_AUDIO_TOKENS_PER_SECOND = 32;
export const GEMINI_TTS_MODELS = ['gemini-2.5-flash-preview-tts', 'gemini-2.5-pro-preview-tts', 'gemini-3.1-flash-tts-preview', 'gemini-3.8-flash-tts', 'gemini-3.8-flash-lite-tts'];
/** The 30 prebuilt voices of Gemini TTS. */
export const GEMINI_VOICES = [
  'Zephyr', 'Puck', 'Charon', 'Kore', 'Fenrir', 'Leda', 'Orus', 'Aoede', 'Callirrhoe', 'Autonoe', 'Enceladus', 'Iapetus', 'Umbriel', 'Algieba',
  'Despina', 'Erinome', 'Algenib', 'Rasalgethi', 'Laomedeia', 'Achernar', 'Alnilam', 'Schedar', 'Gacrux', 'Pulcherrima', 'Achird',
  'Zubenelgenubi', 'Vindemiatrix', 'Sadachbia', 'Sadaltager', 'Sulafat',
];
const STREAM = /^\/v1beta\/models\/([^/:]*-tts[^/:]*):streamGenerateContent$/;
const CHARS_PER_SECOND = 15;

export const isTtsModel = (model: string): boolean => /-tts(-|$)/.test(model);

interface Plan {
  model: string;
  text: string;
  seconds: number;
  prompt: number;
  d: Directives;
}

/** POST …:generateContent on a TTS model (the key and JSON were checked by gemini.ts). */
export async function generateTts(ctx: Ctx, model: string, body: Json): Promise<void> {
  const plan = await prepare(ctx, model, body, false);
  if (!plan) return;
  const audio = pcmBytes(plan.seconds);
  sendJson(ctx.res, 200, {
    candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: TTS_MIME, data: audio.toString('base64') } }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: finalGeminiUsage(usage(plan.prompt, audioTokens(plan.seconds)), usageDirective(plan.d)), modelVersion: model, responseId: randomId('', 22),
  });
}

async function streamTts(ctx: Ctx): Promise<void> {
  if (!geminiAuthorized(ctx)) return;
  const [model] = pathParams(ctx, STREAM);
  const body = parseJson(ctx.raw);
  if (!body) return fail(ctx, 400, 'Invalid JSON payload received. Unexpected token.');
  const plan = await prepare(ctx, model, body, true);
  if (!plan) return;
  const sse = new URL(ctx.req.url ?? '/', 'http://sim').searchParams.get('alt') === 'sse';
  const chunks = streamChunks(plan);
  const frame = (c: Json, i: number) => (sse ? `data: ${JSON.stringify(c)}\r\n\r\n` : `${i === 0 ? '[' : '\r\n,'}${JSON.stringify(c)}`);
  const cutAfter = intDirective(plan.d, 'cut_after');
  const steps: Step[] = [];
  for (const [i, c] of chunks.entries()) {
    if (i === cutAfter) { steps.push({ cut: true }); break; }
    steps.push({ data: frame(c, i) });
  }
  if (!sse && !('cut' in (steps.at(-1) ?? {}))) steps.push({ data: ']' });
  await playSteps(ctx, steps, {
    contentType: sse ? 'text/event-stream' : 'application/json; charset=UTF-8', intervalMs: intDirective(plan.d, 'interval_ms', 0),
    complete: (last) => last === ']' || last.includes('"finishReason"'),
  });
}

const audioTokens = (seconds: number): number => Math.ceil(seconds * GEMINI_AUDIO_TOKENS_PER_SECOND - 1e-9);

function usage(prompt: number, audio: number): Json {
  return {
    promptTokenCount: prompt, candidatesTokenCount: audio, totalTokenCount: prompt + audio,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }], candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: audio }],
  };
}

/** One chunk per second of audio (`chunks=N` overrides), each a PCM slice; whole samples, so slices concatenate. */
function streamChunks(p: Plan): Json[] {
  const audio = pcmBytes(p.seconds);
  const n = Math.max(1, intDirective(p.d, 'chunks', Math.ceil(p.seconds)));
  const samples = audio.length / 2;
  const responseId = randomId('', 22);
  const total = audioTokens(p.seconds);
  return Array.from({ length: n }, (_, i) => {
    const last = i === n - 1;
    const slice = audio.subarray(Math.floor((samples * i) / n) * 2, Math.floor((samples * (i + 1)) / n) * 2);
    const sofar = last ? total : Math.floor((total * (i + 1)) / n);
    return {
      candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: TTS_MIME, data: slice.toString('base64') } }] }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
      usageMetadata: last ? finalGeminiUsage(usage(p.prompt, total), usageDirective(p.d)) : usage(p.prompt, sofar), modelVersion: p.model, responseId,
    };
  });
}

/** Google's checks for a TTS request, then `first_byte_ms` and `status=`; undefined once answered. */
async function prepare(ctx: Ctx, model: string, body: Json, streaming: boolean): Promise<Plan | undefined> {
  const texts = textsOf(body.contents);
  if (typeof texts === 'string') return void fail(ctx, 400, texts);
  const problem = modalityProblem(model, body.generationConfig) ?? speechProblem((body.generationConfig as Json | undefined)?.speechConfig);
  if (problem) return void fail(ctx, 400, problem);
  if (model.startsWith('missing-')) {
    return void fail(ctx, 404, `models/${model} is not found for API version v1beta, or is not supported for ${streaming ? 'streamGenerateContent' : 'generateContent'}. Call ListModels to see the list of available models and their supported methods.`);
  }
  const text = texts.join(' ');
  const d = parseDirectives(text);
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return undefined;
  const status = intDirective(d, 'status');
  if (status === 0) return void ctx.req.socket.destroy();
  if (status !== undefined && status >= 400 && status <= 599) {
    const e = geminiError(status);
    return void sendJson(ctx.res, status, e.body, e.headers);
  }
  const seconds = secondsOf(text, d);
  recordAudio(ctx.control, { endpoint: 'gemini-tts', model, responseFormat: 'pcm', stream: streaming, seconds, fileName: null, fileBytes: null, container: null });
  return { model, text, seconds, prompt: text.split(/\s+/).filter(Boolean).length, d };
}

/** `[sim seconds=N]`, else 15 characters a second (directives left out), at least one second. */
function secondsOf(text: string, d: Directives): number {
  const asked = Number(d.seconds);
  if (d.seconds !== undefined && Number.isFinite(asked) && asked > 0) return asked;
  return Math.max(1, Math.ceil(text.replace(/\[sim\s[^\]]*\]/g, '').trim().length / CHARS_PER_SECOND));
}

/** TTS models read text only. */
function textsOf(contents: unknown): string[] | string {
  if (!Array.isArray(contents) || contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified\n';
  const texts: string[] = [];
  for (const [i, c] of contents.entries()) {
    const parts = isObject(c) && Array.isArray(c.parts) ? c.parts : [];
    if (parts.length === 0) return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`;
    for (const p of parts) {
      if (!isObject(p) || typeof p.text !== 'string') return 'This model only supports text input.';
      texts.push(p.text);
    }
  }
  return texts;
}

function modalityProblem(model: string, config: unknown): string | undefined {
  const asked = isObject(config) && Array.isArray(config.responseModalities) ? config.responseModalities.map((m) => String(m).toUpperCase()) : ['TEXT'];
  if (asked.length === 1 && asked[0] === 'AUDIO') return undefined;
  return `The requested combination of response modalities (${asked.join(', ')}) is not supported by the model. models/${model} accepts the following combination of response modalities:\n* AUDIO\n`;
}

/** One voice (a prebuilt name) or exactly two speakers, each with a name and a prebuilt voice. */
function speechProblem(speech: unknown): string | undefined {
  if (speech === undefined) return undefined;
  if (!isObject(speech)) return "Invalid value at 'generation_config.speech_config'";
  if (speech.voiceConfig !== undefined && speech.multiSpeakerVoiceConfig !== undefined) return 'speech_config: voice_config and multi_speaker_voice_config cannot both be set.';
  if (speech.voiceConfig !== undefined) return voiceProblem(speech.voiceConfig);
  const multi = speech.multiSpeakerVoiceConfig;
  if (multi === undefined) return undefined;
  const speakers = isObject(multi) && Array.isArray(multi.speakerVoiceConfigs) ? multi.speakerVoiceConfigs : [];
  if (speakers.length !== 2) return 'The number of enabled_voices must equal 2.';
  for (const s of speakers) {
    if (!isObject(s) || typeof s.speaker !== 'string' || s.speaker === '') return 'speaker_voice_configs: each entry needs a speaker name.';
    const p = voiceProblem(s.voiceConfig);
    if (p) return p;
  }
  return undefined;
}

function voiceProblem(voice: unknown): string | undefined {
  const name = isObject(voice) && isObject(voice.prebuiltVoiceConfig) ? voice.prebuiltVoiceConfig.voiceName : undefined;
  if (typeof name !== 'string') return "voice_config: prebuilt_voice_config.voice_name is required.";
  return GEMINI_VOICES.some((v) => v.toLowerCase() === name.toLowerCase()) ? undefined : `Voice name ${name} is not supported. Supported voices are: ${GEMINI_VOICES.join(', ')}.`;
}

export const geminiTtsRoutes = [route('POST', STREAM, streamTts)];
