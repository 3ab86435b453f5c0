// Volcengine signature V4 (HMAC-SHA256, AWS-like): a signer tests can compare against, and the verifier behind the visual API's 401s.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Access key → secret key pairs the simulator accepts. Mutable on purpose: a test can add `VOLC_KEYS['my-ak'] = 'my-sk'`. */
export const VOLC_KEYS: Record<string, string> = { 'sim-ak': 'sim-sk' };

export const VOLC_REGION = 'cn-north-1';
export const VOLC_SERVICE = 'cv';

/** A credential scope: which region and service a signature is for. Volcengine routes and verifies by it. */
export interface VolcScope {
  region: string;
  service: string;
}

/** The visual API (Jimeng): `cn-north-1/cv`. */
export const VISUAL_SCOPE: VolcScope = { region: VOLC_REGION, service: VOLC_SERVICE };
/** The Ark OpenAPI (assets), served on open.volcengineapi.com: `cn-beijing/ark`. */
export const ARK_SCOPE: VolcScope = { region: 'cn-beijing', service: 'ark' };
/** Requests whose X-Date is further off than this are refused, like the real gateway's replay window. */
export const VOLC_MAX_SKEW_MS = 15 * 60 * 1000;

export interface VolcSignInput {
  ak: string;
  sk: string;
  host: string;
  /** `{Action, Version}` or the raw query string. */
  query: Record<string, string> | string;
  body: string | Buffer;
  method?: string;
  path?: string;
  contentType?: string;
  region?: string;
  service?: string;
  /** `YYYYMMDDThhmmssZ`; defaults to now. */
  xDate?: string;
}

export interface VolcSigned {
  /** Headers to send: Host, Content-Type, X-Date, X-Content-Sha256, Authorization. */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986: everything but unreserved characters escaped (Python's quote(safe="-_.~"), as in Volcengine's sample). */
function encode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Keys sorted, each value encoded; repeated keys keep their order. */
export function canonicalQuery(query: Record<string, string> | string): string {
  const pairs = typeof query === 'string' ? [...new URLSearchParams(query)] : Object.entries(query);
  return pairs
    .map(([k, v], i) => ({ k, v, i }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i))
    .map(({ k, v }) => `${encode(k)}=${encode(v)}`)
    .join('&');
}

export function xDateNow(ms = Date.now()): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** METHOD, path, query, `name:value` lines, an empty line, the signed-header list, the payload hash. */
export function canonicalRequest(method: string, path: string, query: string, headers: [string, string][], payloadHash: string): string {
  const lines = headers.map(([n, v]) => `${n}:${v.trim()}`);
  return [method.toUpperCase(), path, query, ...lines, '', headers.map(([n]) => n).join(';'), payloadHash].join('\n');
}

/** Key chain SK → date → region → service → "request", then HMAC of the string to sign, hex. */
export function volcSignature(sk: string, xDate: string, region: string, service: string, canonical: string): { stringToSign: string; signature: string } {
  const date = xDate.slice(0, 8);
  const stringToSign = ['HMAC-SHA256', xDate, `${date}/${region}/${service}/request`, sha256Hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(sk, date), region), service), 'request');
  return { stringToSign, signature: createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex') };
}

/** Signs a request exactly as Volcengine's SDK samples do (signed headers content-type;host;x-content-sha256;x-date). */
export function signVolcV4(input: VolcSignInput): VolcSigned {
  const region = input.region ?? VOLC_REGION;
  const service = input.service ?? VOLC_SERVICE;
  const xDate = input.xDate ?? xDateNow();
  const contentType = input.contentType ?? 'application/json';
  const payloadHash = sha256Hex(input.body);
  const headers: [string, string][] = [['content-type', contentType], ['host', input.host], ['x-content-sha256', payloadHash], ['x-date', xDate]];
  const canonical = canonicalRequest(input.method ?? 'POST', input.path ?? '/', canonicalQuery(input.query), headers, payloadHash);
  const { stringToSign, signature } = volcSignature(input.sk, xDate, region, service, canonical);
  const authorization = `HMAC-SHA256 Credential=${input.ak}/${xDate.slice(0, 8)}/${region}/${service}/request, SignedHeaders=${headers.map(([n]) => n).join(';')}, Signature=${signature}`;
  return {
    headers: { Host: input.host, 'Content-Type': contentType, 'X-Date': xDate, 'X-Content-Sha256': payloadHash, Authorization: authorization },
    canonicalRequest: canonical, stringToSign, signature,
  };
}

const AUTH = /^HMAC-SHA256\s+Credential=([^/\s,]+)\/(\d{8})\/([^/\s,]+)\/([^/\s,]+)\/request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/i;

export interface VolcVerdict {
  ok: boolean;
  ak: string | null;
  /** Volcengine error code (`ResponseMetadata.Error.Code`) and its numeric twin where known. */
  code?: string;
  codeN?: number;
  message?: string;
  /** What exactly was wrong, for the signature log (never sent to the client). */
  reason?: string;
  signedHeaders?: string;
  canonicalRequest?: string;
}

/** The AK of a well-formed Authorization header, unverified: lets scripted faults be keyed by access key. */
export function volcAccessKey(authorization: string | undefined): string | undefined {
  return AUTH.exec(authorization?.trim() ?? '')?.[1];
}

/** The credential scope a well-formed Authorization header claims, unverified: which service the request is for. */
export function volcScope(authorization: string | undefined): VolcScope | undefined {
  const m = AUTH.exec(authorization?.trim() ?? '');
  return m ? { region: m[3], service: m[4] } : undefined;
}

type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * Checks a received request the way Volcengine's gateway does; `url` is the request target (`/?Action=…&Version=…`),
 * `scope` the region and service this endpoint serves (the visual API's by default).
 */
export function verifyVolcV4(method: string, url: string, headers: HeaderBag, body: Buffer, keys = VOLC_KEYS, now = Date.now(), scope: VolcScope = VISUAL_SCOPE): VolcVerdict {
  const header = (n: string): string | undefined => {
    const v = headers[n];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  const m = AUTH.exec(header('authorization')?.trim() ?? '');
  if (!m) return bad(null, 'InvalidAuthorization', 'The Authorization header is missing or malformed.', 'authorization header missing or not HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…');
  const [, ak, date, region, service, signedHeaders, signature] = m;
  if (region !== scope.region || service !== scope.service) return bad(ak, 'InvalidCredential', 'The credential scope is invalid.', `scope ${region}/${service}, expected ${scope.region}/${scope.service}`);
  const sk = Object.hasOwn(keys, ak) ? keys[ak] : undefined;
  if (sk === undefined) return { ...bad(ak, 'InvalidAccessKey', 'The AccessKey ID provided does not exist in our records.', `unknown access key ${ak}`), codeN: 100009 };
  const names = signedHeaders.toLowerCase().split(';');
  if (!names.includes('host') || !names.includes('x-date')) return bad(ak, 'InvalidAuthorization', 'SignedHeaders must include host and x-date.', `signed headers ${signedHeaders}`);
  const xDate = header('x-date') ?? '';
  const at = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(xDate);
  const when = at ? Date.UTC(+at[1], +at[2] - 1, +at[3], +at[4], +at[5], +at[6]) : NaN;
  if (!at || xDate.slice(0, 8) !== date || Math.abs(now - when) > VOLC_MAX_SKEW_MS) {
    return bad(ak, 'InvalidTimestamp', 'The X-Date header is missing, malformed or too far from the server time.', `x-date ${xDate || '(none)'} / credential date ${date}`);
  }
  const pairs = names.map((n): [string, string] => [n, header(n) ?? '']);
  const search = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const path = url.split('?')[0] || '/';
  const bodyHash = sha256Hex(body);
  const canonical = canonicalRequest(method, path, canonicalQuery(search), pairs, bodyHash);
  const expected = volcSignature(sk, xDate, region, service, canonical).signature;
  const sent = header('x-content-sha256');
  const hashNote = sent !== undefined && sent !== bodyHash ? 'x-content-sha256 does not match the body; ' : '';
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(signature.toLowerCase()))) {
    return {
      ...bad(ak, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your Secret Access Key and signing method. Consult the service documentation for details.', `${hashNote}signature mismatch`),
      codeN: 100010, signedHeaders, canonicalRequest: canonical,
    };
  }
  return { ok: true, ak, signedHeaders };
}

function bad(ak: string | null, code: string, message: string, reason: string): VolcVerdict {
  return { ok: false, ak, code, message, reason };
}
