// Why an upstream attempt failed, in the three kinds dispatch acts on.

/** `connect` (nothing was sent: safe to try elsewhere), `timeout` (no answer in time), or `network`. */
export class UpstreamFailure extends Error {
  constructor(readonly kind: 'connect' | 'timeout' | 'network', message: string, options?: ErrorOptions) { super(message, options); }
}

const connectCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPRIVATE']);

/**
 * A refused or unresolvable address never received the request; anything else may have. The original error stays as
 * `cause` (a private address refused by the pool's lookup is an UnsafeUrl the caller explains).
 */
export function classify(err: Error & { code?: string }): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  if (err.code && connectCodes.has(err.code)) return new UpstreamFailure('connect', `cannot connect (${err.code})`, { cause: err });
  return new UpstreamFailure('network', err.code ? `network error (${err.code})` : 'network error');
}
