// How a probe's answer is judged (the order the Probe schema documents): a connect failure or timeout is
// unreachable; an answer `auth_failed_when` holds for is an authentication failure; a status in `ok_status` (any
// 2xx by default) is ok; 401/403 are an authentication failure; 429 is rate limited (throttled, or out of credit:
// the key is not confirmed); 5xx is the vendor's error; anything else is unexpected (a wrong path or a missing
// ok_status). Only statuses and the vendor's error code are reported, never a body a key could be echoed in.
import { UpstreamFailure } from '../transport/http-client.js';
import type { CompiledProbe } from '../config/compile-probe.js';

export type Verdict = 'ok' | 'auth failed' | 'rate limited' | 'vendor error' | 'unexpected' | 'unreachable';

export interface Judged { verdict: Verdict; detail: string }

export async function judgeAnswer(probe: CompiledProbe, status: number, body: Buffer | undefined): Promise<Judged> {
  const json = parse(body);
  const code = json === undefined ? undefined : vendorCode(json, status);
  const http = `HTTP ${status}${code && !isOk(probe, status) ? ` (${code})` : ''}`;
  if (probe.authFailedWhen && json !== undefined && await holds(probe, json, status)) {
    return { verdict: 'auth failed', detail: `HTTP ${status}${code ? ` (${code})` : ''}: the answer says the key was refused (auth_failed_when)` };
  }
  if (isOk(probe, status)) return { verdict: 'ok', detail: http };
  if (status === 401 || status === 403) return { verdict: 'auth failed', detail: `${http}: the vendor refused the key` };
  if (status === 429) return { verdict: 'rate limited', detail: `${http}: reachable, but throttled or out of credit; the key is not confirmed` };
  if (status >= 500) return { verdict: 'vendor error', detail: `${http}: the vendor failed` };
  return { verdict: 'unexpected', detail: `${http}: not an answer this probe counts as ok (check probe.path, or add the status to probe.ok_status)` };
}

/** Connect failures and timeouts say what happened in their own message (`cannot connect (ECONNREFUSED)`, …). */
export function judgeFailure(err: unknown): Judged {
  const message = (err as Error)?.message ?? String(err);
  return { verdict: 'unreachable', detail: err instanceof UpstreamFailure ? message : `request failed: ${message}` };
}

const isOk = (p: CompiledProbe, status: number) => (p.okStatus ? p.okStatus.has(status) : status >= 200 && status < 300);

async function holds(p: CompiledProbe, json: unknown, status: number): Promise<boolean> {
  try { return (await p.authFailedWhen!.run(json, { status })) === true; } catch { return false; }
}

function parse(body: Buffer | undefined): unknown {
  if (!body?.length) return undefined;
  try { return JSON.parse(body.toString('utf8')); } catch { return undefined; }
}

/**
 * The vendor's error code where the common error shapes put one; only identifier-like values, so nothing is echoed,
 * and not the status again.
 */
function vendorCode(json: unknown, status: number): string | undefined {
  const o = json as Record<string, any> | null;
  if (!o || typeof o !== 'object') return undefined;
  const e = o.error && typeof o.error === 'object' ? o.error : undefined;
  for (const v of [e?.code, e?.type, e?.status, o.code, o.reason, o.error_code]) {
    const s = typeof v === 'number' ? String(v) : v;
    if (typeof s === 'string' && s !== String(status) && /^[A-Za-z0-9_.:-]{1,64}$/.test(s)) return s;
  }
  return undefined;
}
