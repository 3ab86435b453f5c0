// The admin code paths' refusal (tokens, users, teams), turned into the contract's shape by the API and into exit codes by the CLI.
/**
 * A refusal that names what was wrong; `notFound` when the token (or `what`: the user, the team) does not exist;
 * `conflict` when the change cannot apply to the current state (a user already in another team).
 */
export class TokenAdminError extends Error {
  constructor(message: string, readonly field?: string, readonly notFound = false, readonly what: 'token' | 'user' | 'team' = 'token', readonly conflict = false) { super(message); }
}

/** No such user or team; `ref` is quoted cut short (it may be anything a caller sent). */
export const notFound = (what: 'user' | 'team', ref: unknown) => new TokenAdminError(`no ${what} ${String(ref).slice(0, 80)}`, undefined, true, what);

/** The change cannot apply to the current state (a name taken, a member of another team): nothing was changed. */
export const conflict = (message: string, field: string, what: 'user' | 'team') => new TokenAdminError(message, field, false, what, true);
