// session.update: the GA shape (`session.type` required), checked field by field as OpenAI checks it, then merged into
// the session: objects key by key, arrays and scalars replaced; a new turn_detection gets its type's defaults.
import { AUDIO_FORMATS, type Json, REALTIME_VOICES, semanticVad, serverVad } from './defaults.js';
import { type RealtimeError, invalidValue, missingParam } from './events.js';

const FIELDS = ['type', 'model', 'output_modalities', 'instructions', 'audio', 'include', 'tracing', 'tools', 'tool_choice', 'max_output_tokens', 'truncation', 'prompt'];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mergeSession(current: Json, update: unknown): Json | RealtimeError {
  if (!isObject(update)) return missingParam('session');
  const problem = check(update);
  if (problem) return problem;
  return withDefaults(deepMerge(current, update), update);
}

function check(u: Json): RealtimeError | undefined {
  const unknown = Object.keys(u).find((k) => !FIELDS.includes(k));
  if (unknown) return { code: 'unknown_parameter', param: `session.${unknown}`, message: `Unknown parameter: 'session.${unknown}'.` };
  if (u.type === undefined) return missingParam('session.type');
  if (u.type !== 'realtime') return invalidValue('session.type', `Invalid value: '${String(u.type)}'. A realtime session cannot be changed to another type.`);
  return checkModalities(u.output_modalities) ?? checkAudio(u.audio) ?? checkTools(u.tools) ?? checkMaxTokens(u.max_output_tokens)
    ?? (u.instructions !== undefined && typeof u.instructions !== 'string' ? invalidType('session.instructions', 'a string') : undefined);
}

const invalidType = (param: string, expected: string): RealtimeError => ({ code: 'invalid_type', param, message: `Invalid type for '${param}': expected ${expected}.` });

/** GA answers in audio (with its transcript) or in text, never both. */
function checkModalities(m: unknown): RealtimeError | undefined {
  if (m === undefined) return undefined;
  if (!Array.isArray(m) || m.length !== 1 || !['audio', 'text'].includes(m[0])) {
    return invalidValue('session.output_modalities', `Invalid value: ${JSON.stringify(m)}. Supported values are: ["audio"] and ["text"].`);
  }
  return undefined;
}

function checkAudio(a: unknown): RealtimeError | undefined {
  if (a === undefined) return undefined;
  if (!isObject(a)) return invalidType('session.audio', 'an object');
  const input = isObject(a.input) ? a.input : {};
  const output = isObject(a.output) ? a.output : {};
  for (const [side, format] of [['input', input.format], ['output', output.format]] as const) {
    if (format === undefined) continue;
    if (!isObject(format) || !AUDIO_FORMATS.includes(String(format.type))) {
      return invalidValue(`session.audio.${side}.format.type`, `Invalid value: '${isObject(format) ? String(format.type) : String(format)}'. Supported values are: ${AUDIO_FORMATS.map((f) => `'${f}'`).join(', ')}.`);
    }
    if (format.type === 'audio/pcm' && format.rate !== undefined && format.rate !== 24000) {
      return invalidValue(`session.audio.${side}.format.rate`, `Invalid value: ${String(format.rate)}. Supported values are: 24000.`);
    }
  }
  const td = input.turn_detection;
  if (td !== undefined && td !== null && (!isObject(td) || !['server_vad', 'semantic_vad'].includes(String(td.type)))) {
    return invalidValue('session.audio.input.turn_detection.type', `Invalid value: '${isObject(td) ? String(td.type) : String(td)}'. Supported values are: 'server_vad' and 'semantic_vad'.`);
  }
  const voice = output.voice;
  if (voice !== undefined && !(typeof voice === 'string' && REALTIME_VOICES.includes(voice)) && !(isObject(voice) && typeof voice.id === 'string')) {
    return invalidValue('session.audio.output.voice', `Invalid value: '${String(voice)}'. Supported values are: ${REALTIME_VOICES.map((v) => `'${v}'`).join(', ')}.`);
  }
  return undefined;
}

function checkTools(tools: unknown): RealtimeError | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return invalidType('session.tools', 'an array');
  const i = tools.findIndex((t) => !isObject(t) || (t.type === 'function' && typeof t.name !== 'string') || !['function', 'mcp'].includes(String(t.type ?? 'function')));
  return i < 0 ? undefined : invalidValue(`session.tools[${i}]`, `Invalid value for 'session.tools[${i}]': a function tool needs a 'name'.`);
}

function checkMaxTokens(m: unknown): RealtimeError | undefined {
  if (m === undefined || m === 'inf') return undefined;
  if (typeof m !== 'number' || !Number.isInteger(m) || m < 1 || m > 4096) {
    return invalidValue('session.max_output_tokens', `Invalid 'session.max_output_tokens': expected an integer between 1 and 4096, or 'inf', but got ${JSON.stringify(m)}.`);
  }
  return undefined;
}

function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? deepMerge(out[k] as Json, v) : v;
  return out;
}

/** A turn_detection the update names is the update's fields over its type's defaults, not over the old one's. */
function withDefaults(merged: Json, update: Json): Json {
  const td = ((update.audio as Json)?.input as Json)?.turn_detection;
  if (!isObject(td)) return merged;
  const input = (merged.audio as Json).input as Json;
  input.turn_detection = td.type === 'semantic_vad' ? semanticVad(td) : serverVad(td);
  return merged;
}
