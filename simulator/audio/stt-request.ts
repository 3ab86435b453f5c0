// Reads and checks a transcription or translation upload (multipart/form-data) the way OpenAI does, in its order:
// content type, the 25 MB limit (413), the form, model, file, response_format against the model, the model-specific
// fields, language, temperature, then the file itself (extension, then content). Array fields arrive as `name[]`.
import { parseDirectives } from '../directives.js';
import { type Ctx } from '../http.js';
import { rawBodyOf } from '../video/raw-body.js';
import { type AudioProblem, invalidValue, missing, notFound, problem } from './openai-errors.js';
import { type Probe, probe } from './probe.js';
import {
  ALL_FORMATS, DIARIZE_CHUNKING_ABOVE_SECONDS, MAX_UPLOAD_BYTES, MIN_SECONDS, type SttFamily, TRANSLATION_FORMATS,
  UPLOAD_EXTENSIONS, familyOf, formatsOf,
} from './stt-models.js';

export interface SttRequest {
  translate: boolean;
  model: string;
  family: SttFamily;
  format: string;
  stream: boolean;
  prompt?: string;
  language?: string;
  temperature: number;
  granularities: string[];
  logprobs: boolean;
  knownNames: string[];
  chunking: boolean;
  fileName: string;
  fileBytes: Buffer;
  /** Undefined when the bytes are no audio container OpenAI reads. */
  probe?: Probe;
  /** The audio's length: `[sim seconds=N]` in the prompt, else the file's. */
  seconds: number;
}

type Form = Awaited<ReturnType<Response['formData']>>;

const DIRECTIVES_ONLY = /^(\s*\[sim\s[^\]]*\])+\s*$/;

export async function readSttRequest(ctx: Ctx, translate: boolean): Promise<SttRequest | AudioProblem> {
  const ct = String(ctx.req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data/i.test(ct)) {
    return problem(`Invalid Content-Type header (${ct || 'none'}), expected multipart/form-data. (HINT: If you're using curl, you can pass -H 'Content-Type: multipart/form-data')`);
  }
  const raw = rawBodyOf(ctx.req, ctx.raw);
  if (raw.length > MAX_UPLOAD_BYTES) {
    return { status: 413, message: `Maximum content size limit (${MAX_UPLOAD_BYTES}) exceeded (${raw.length} bytes read)`, param: null, code: null };
  }
  let form: Form;
  try {
    form = await new Response(new Uint8Array(raw), { headers: { 'content-type': ct } }).formData();
  } catch {
    return problem('Could not parse multipart form data.');
  }
  return fromForm(form, translate);
}

const text = (form: Form, name: string): string | undefined => {
  const v = form.get(name);
  return typeof v === 'string' ? v : undefined;
};
const list = (form: Form, name: string): string[] => [...form.getAll(`${name}[]`), ...form.getAll(name)].filter((v): v is string => typeof v === 'string');

async function fromForm(form: Form, translate: boolean): Promise<SttRequest | AudioProblem> {
  const model = text(form, 'model');
  if (!model) return missing('model');
  const file = form.get('file');
  if (!file || typeof file === 'string') return missing('file');
  if (model.startsWith('missing-')) return notFound(model);
  const family = familyOf(model);
  if (translate && family !== 'whisper') return problem(`Invalid model '${model}' for translations. Translations support only 'whisper-1'.`, 'model', 'invalid_value');
  const format = text(form, 'response_format') ?? 'json';
  const known = translate ? TRANSLATION_FORMATS : ALL_FORMATS;
  if (!known.includes(format)) return invalidValue('response_format', format, known);
  if (!formatsOf(family).includes(format)) {
    return problem(`response_format '${format}' is not compatible with model '${model}'. Use ${quoted(formatsOf(family))} instead.`, 'response_format', 'unsupported_value');
  }
  const fields = readFields(form, family, format);
  if ('status' in fields) return fields;
  const bytes = Buffer.from(await file.arrayBuffer());
  const probed = probe(bytes);
  const asked = Number(parseDirectives(fields.prompt ?? '').seconds);
  const seconds = Number.isFinite(asked) && asked > 0 ? asked : (probed?.seconds ?? 0);
  const request: SttRequest = { translate, model, family, format, ...fields, fileName: file.name, fileBytes: bytes, probe: probed, seconds };
  return checkFile(request) ?? request;
}

const quoted = (xs: string[]): string => xs.map((x) => `'${x}'`).join(xs.length === 2 ? ' or ' : ', ');

type Fields = Pick<SttRequest, 'stream' | 'prompt' | 'language' | 'temperature' | 'granularities' | 'logprobs' | 'knownNames' | 'chunking'>;

function readFields(form: Form, family: SttFamily, format: string): Fields | AudioProblem {
  const prompt = text(form, 'prompt');
  const include = list(form, 'include');
  const granularities = list(form, 'timestamp_granularities');
  const knownNames = list(form, 'known_speaker_names');
  const language = text(form, 'language');
  const temperature = Number(text(form, 'temperature') ?? 0);
  const chunking = text(form, 'chunking_strategy') ?? [...form.keys()].find((k) => k.startsWith('chunking_strategy['));
  const badInclude = include.find((v) => v !== 'logprobs');
  if (badInclude) return invalidValue('include[0]', badInclude, ['logprobs']);
  if (include.length && (family !== 'tokens' || format !== 'json')) {
    return problem("logprobs are only supported with response_format 'json' on the models gpt-4o-transcribe and gpt-4o-mini-transcribe.", 'include', 'unsupported_value');
  }
  const badGranularity = granularities.find((g) => g !== 'word' && g !== 'segment');
  if (badGranularity) return invalidValue('timestamp_granularities[0]', badGranularity, ['word', 'segment']);
  if (family === 'diarize') {
    const p = diarizeProblem(prompt, granularities, knownNames, list(form, 'known_speaker_references'));
    if (p) return p;
  }
  if (language !== undefined && !/^[a-z]{2}$/.test(language)) {
    const extra = family === 'whisper' ? { usage: { type: 'duration', seconds: 0 } } : undefined;
    return { ...problem(`Invalid language '${language}'. Language parameter must be specified in ISO-639-1 format.`, 'language', 'invalid_language_format'), extra };
  }
  if (!Number.isFinite(temperature)) return problem("Invalid type for 'temperature': expected a decimal.", 'temperature', 'invalid_type');
  if (temperature < 0) return problem(`Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got ${temperature} instead.`, 'temperature', 'decimal_below_min_value');
  if (temperature > 1) return problem(`Invalid 'temperature': decimal above maximum value. Expected a value <= 1, but got ${temperature} instead.`, 'temperature', 'decimal_above_max_value');
  return {
    stream: text(form, 'stream') === 'true' && family !== 'whisper', prompt, language, temperature,
    granularities: granularities.length ? granularities : ['segment'], logprobs: include.includes('logprobs'), knownNames, chunking: chunking !== undefined,
  };
}

/** Diarization takes no prompt (one made of `[sim …]` directives alone is let through, as a test hook). */
function diarizeProblem(prompt: string | undefined, granularities: string[], names: string[], references: string[]): AudioProblem | undefined {
  if (prompt && !DIRECTIVES_ONLY.test(prompt)) return problem("prompt is not supported with model 'gpt-4o-transcribe-diarize'.", 'prompt', 'unsupported_value');
  if (granularities.length) return problem("timestamp_granularities is not supported with model 'gpt-4o-transcribe-diarize'.", 'timestamp_granularities', 'unsupported_value');
  if (names.length > 4) return problem(`Invalid 'known_speaker_names': array too long. Expected an array with maximum length 4, but got an array with length ${names.length} instead.`, 'known_speaker_names', 'array_above_max_length');
  if (references.length && references.length !== names.length) return problem('known_speaker_names and known_speaker_references must have the same length.', 'known_speaker_references', 'invalid_value');
  return undefined;
}

/** The extension decides the format; then the content must decode; then it must be long enough. */
function checkFile(r: SttRequest): AudioProblem | undefined {
  const ext = /\.([^.]+)$/.exec(r.fileName)?.[1]?.toLowerCase() ?? '';
  if (!UPLOAD_EXTENSIONS.includes(ext)) return problem(`Invalid file format. Supported formats: [${UPLOAD_EXTENSIONS.map((e) => `'${e}'`).join(', ')}]`);
  if (!r.probe) {
    return r.family === 'whisper'
      ? problem('The audio file could not be decoded or its format is not supported.')
      : problem('Audio file might be corrupted or unsupported', 'file', 'invalid_value');
  }
  if (r.seconds < MIN_SECONDS) return problem(`Audio file is too short. Minimum audio length is ${MIN_SECONDS} seconds.`, 'file', 'audio_too_short');
  if (r.family === 'diarize' && !r.chunking && r.seconds > DIARIZE_CHUNKING_ABOVE_SECONDS) {
    return problem(`chunking_strategy is required for audio longer than ${DIARIZE_CHUNKING_ABOVE_SECONDS} seconds with model '${r.model}'.`, 'chunking_strategy', 'missing_required_parameter');
  }
  return undefined;
}
