// The admin code paths' refusals (TokenAdminError) in the contract's Shape A: 404 `token_not_found`,
// `user_not_found` or `team_not_found` for what does not exist, 409 `conflict` for a change the current state
// refuses, else 400 `invalid_request` naming the field.
import { GatewayError } from '../http/errors.js';
import { TokenAdminError } from './admin-error.js';

export async function refused<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof TokenAdminError)) throw err;
    const code = err.notFound ? (`${err.what}_not_found` as const) : err.conflict ? 'conflict' : 'invalid_request';
    throw new GatewayError(code, err.field && !err.message.includes('`') ? `\`${err.field}\`: ${err.message}` : err.message);
  }
}
