// OpenAI's error answers for the audio endpoints, worded as api.openai.com words them (type invalid_request_error).
import { type Ctx, errorBody, sendJson } from '../http.js';

export interface AudioProblem {
  status: number;
  message: string;
  param: string | null;
  code: string | null;
  /** Extra top-level fields some answers carry (a whisper-1 400 also reports `usage: {type:"duration", seconds:0}`). */
  extra?: Record<string, unknown>;
}

export const problem = (message: string, param: string | null = null, code: string | null = null, status = 400): AudioProblem => ({ status, message, param, code });

export function sendProblem(ctx: Ctx, p: AudioProblem): void {
  sendJson(ctx.res, p.status, { ...errorBody(p.message, 'invalid_request_error', p.param, p.code), ...p.extra });
}

export const missing = (param: string): AudioProblem => problem(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');

export const notFound = (model: string): AudioProblem =>
  problem(`The model \`${model}\` does not exist or you do not have access to it.`, null, 'model_not_found', 404);

export function invalidValue(param: string, value: unknown, allowed: readonly string[]): AudioProblem {
  const list = allowed.map((v) => `'${v}'`);
  const words = list.length > 1 ? `${list.slice(0, -1).join(', ')}, and ${list.at(-1)}` : list.join('');
  return problem(`Invalid value: '${String(value)}'. Supported values are: ${words}.`, param, 'invalid_value');
}

export { directedFailure } from '../openai-status.js';

export const BAD_JSON = problem(
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
);

