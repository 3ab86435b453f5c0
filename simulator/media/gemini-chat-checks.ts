// What Google's API checks in a chat request before answering, worded as it answers (gemini-chat.ts): contents and
// parts, function call and response turns, Gemini 3's thought signatures, tools, generationConfig ranges.
import { type Json, isObject } from '../video/common.js';

const PART_FIELDS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];
const NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

export function validContents(contents: unknown): string | undefined {
  if (!Array.isArray(contents) || contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified\n';
  for (const [i, c] of contents.entries()) {
    if (!isObject(c)) return `Invalid value at 'contents[${i}]'`;
    if (c.role !== undefined && c.role !== 'user' && c.role !== 'model' && c.role !== 'function') return 'Please use a valid role: user, model.';
    if (!Array.isArray(c.parts) || c.parts.length === 0) return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`;
    for (const [j, p] of c.parts.entries()) {
      const set = isObject(p) ? PART_FIELDS.filter((f) => p[f] !== undefined) : [];
      if (set.length !== 1) return `* GenerateContentRequest.contents[${i}].parts[${j}].data: required oneof field 'data' must have one initialized field\n`;
      const call = (p as Json).functionCall ?? (p as Json).functionResponse;
      if (call !== undefined && !(isObject(call) && typeof call.name === 'string' && call.name !== '')) {
        return `* GenerateContentRequest.contents[${i}].parts[${j}].${set[0]}.name: Name cannot be empty.\n`;
      }
    }
  }
  return undefined;
}

export const partsOf = (c: Json | undefined, field: string) => (Array.isArray(c?.parts) ? (c.parts as Json[]).filter((p) => p[field] !== undefined) : []);

/** A function call turn follows a user turn; the turn after it answers each call with one function response. */
export function validTurns(contents: Json[]): string | undefined {
  for (const [i, c] of contents.entries()) {
    const calls = partsOf(c, 'functionCall').length;
    if (calls && (c.role !== 'model' || (i > 0 && contents[i - 1].role === 'model'))) {
      return 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.';
    }
    const responses = partsOf(c, 'functionResponse').length;
    if (responses && responses !== partsOf(contents[i - 1], 'functionCall').length) {
      return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
    }
  }
  return undefined;
}

/** Gemini 3 models sign their thoughts: the first function call of each model turn carries the signature back. */
export const thinksInSignatures = (model: string) => /^gemini-3/.test(model);

/** In the current turn (since the last user text), each model turn's first function call must carry its signature. */
export function signed(contents: Json[]): string | undefined {
  const lastText = contents.map((c) => c.role !== 'model' && partsOf(c, 'text').length > 0).lastIndexOf(true);
  for (const c of contents.slice(lastText + 1)) {
    const first = partsOf(c, 'functionCall')[0];
    if (c.role === 'model' && first && typeof first.thoughtSignature !== 'string') {
      const name = String((first.functionCall as Json).name);
      return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${(c.parts as Json[]).indexOf(first) + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
    }
  }
  return undefined;
}

export function validTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return "Invalid value at 'tools' (type.googleapis.com/google.ai.generativelanguage.v1beta.Tool), expected a list";
  for (const [i, t] of tools.entries()) {
    const decls = isObject(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [];
    for (const [j, f] of decls.entries()) {
      const at = `tools[${i}].function_declarations[${j}]`;
      if (!isObject(f) || typeof f.name !== 'string' || !NAME.test(f.name)) {
        return `* GenerateContentRequest.${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`;
      }
      if (f.parameters !== undefined && f.parametersJsonSchema !== undefined) return `* GenerateContentRequest.${at}: parameters and parameters_json_schema cannot both be set.\n`;
    }
  }
  return undefined;
}

export function validConfig(g: unknown): string | undefined {
  if (g === undefined) return undefined;
  if (!isObject(g)) return "Invalid value at 'generation_config'";
  const range = (k: string, lo: number, hi: number) => g[k] !== undefined && !(typeof g[k] === 'number' && (g[k] as number) >= lo && (g[k] as number) <= hi);
  if (range('temperature', 0, 2)) return `* GenerateContentRequest.generation_config.temperature: must be in [0, 2]\n`;
  if (range('topP', 0, 1)) return `* GenerateContentRequest.generation_config.top_p: must be in [0, 1]\n`;
  if (g.maxOutputTokens !== undefined && !(Number.isInteger(g.maxOutputTokens) && (g.maxOutputTokens as number) > 0)) return `Invalid value at 'generation_config.max_output_tokens' (TYPE_INT32), ${JSON.stringify(g.maxOutputTokens)}`;
  if (Array.isArray(g.stopSequences) && g.stopSequences.length > 5) return '* GenerateContentRequest.generation_config.stop_sequences: at most 5 stop sequences are allowed\n';
  if (g.candidateCount !== undefined && !(Number.isInteger(g.candidateCount) && (g.candidateCount as number) >= 1 && (g.candidateCount as number) <= 8)) return '* GenerateContentRequest.generation_config.candidate_count: must be in [1, 8]\n';
  return undefined;
}

