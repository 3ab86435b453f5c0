// Writes the config the bench runs with: the repository's own routes and channels, with group rate limits lifted
// and the per-process connection cap raised for the connection soak.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument, type Document } from 'yaml';

/** Far above anything one token can send here, yet a real limit, so the limiter's cost stays in the measurement. */
export const benchRateLimit = { requests: 1_000_000_000, window_s: 60 };
export const benchMaxInflightTasks = 1_000_000;
/** `server.max_connections` per gateway process (default 10,000): the connection soak holds 20,000 over 2 workers. */
export const benchMaxConnections = 15_000;
/** `max_sessions_per_token` of every realtime route (shipped: 8): the realtime scenario opens 20 sessions on one token. */
export const benchRealtimeSessions = 1000;

/**
 * routes.yaml: `server.max_connections` raised for the connection soak and each realtime route's
 * `max_sessions_per_token` for the realtime scenario, nothing else changed.
 * The shipped groups allow 600-3000 requests a minute per token, which a load test passes in well under a second.
 * Everything else (channels, templates, prices, routes) is the repository's, so the request path is the real one.
 */
export function writeBenchConfig(projectRoot: string, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  // The connection soak holds 20,000 connections over 2 workers: each worker's cap goes from 10,000 to 15,000.
  // Every other server limit (timeouts, body memory) keeps its default.
  const routes = withRealtimeSessions(readFileSync(join(projectRoot, 'routes.yaml'), 'utf8'), benchRealtimeSessions);
  writeFileSync(join(dir, 'routes.yaml'), withMaxConnections(routes, benchMaxConnections));
  const doc = parseDocument(readFileSync(join(projectRoot, 'channels.yaml'), 'utf8'));
  const groups = doc.get('groups') as { items?: { key: unknown }[] } | undefined;
  const names = (groups?.items ?? []).map((p) => String((p.key as { value?: unknown })?.value ?? p.key));
  for (const name of names) {
    doc.setIn(['groups', name, 'rate_limit'], doc.createNode(benchRateLimit));
    doc.setIn(['groups', name, 'max_inflight_tasks'], benchMaxInflightTasks); // the task scenario keeps thousands open
  }
  disableRemoteChannels(doc);
  writeFileSync(join(dir, 'channels.yaml'), doc.toString({ lineWidth: 0 })); // no re-wrapping: a --keep-tmp diff shows only the edits
  return names;
}

/**
 * Sets `server.max_connections`. Without a `server:` block the file is copied byte for byte and the block appended
 * (re-serialising would restyle every flow collection, so a --keep-tmp diff shows only the edit); with one, the yaml
 * Document API edits it in place.
 */
function withMaxConnections(text: string, max: number): string {
  const doc = parseDocument(text);
  const out = doc.has('server') ? (doc.setIn(['server', 'max_connections'], max), doc.toString({ lineWidth: 0 }))
    : `${text}${text.endsWith('\n') ? '' : '\n'}server:\n  max_connections: ${max}\n`;
  const check = parseDocument(out);
  if (check.errors.length || check.getIn(['server', 'max_connections']) !== max) throw new Error(`bench config: could not set server.max_connections in routes.yaml`);
  return out;
}

/**
 * Raises `max_sessions_per_token` of every route with a `realtime` block to `max` (never lowers it). The value is
 * edited in the text when the key is on a line of its own (byte for byte elsewhere); a realtime route without it (the
 * default, 8) or with it in a flow map gets it through the Document API. Checked after.
 */
function withRealtimeSessions(text: string, max: number): string {
  let out = text.replace(/^([ \t]*max_sessions_per_token:[ \t]*)(\d+)/gm, (all, key: string, n: string) => (Number(n) < max ? `${key}${max}` : all));
  const realtimeRoutes = (doc: Document) => ((doc.get('routes') as { items?: unknown[] } | undefined)?.items ?? [])
    .map((_, i) => i).filter((i) => doc.hasIn(['routes', i, 'realtime']));
  const doc = parseDocument(out);
  const low = (d: Document, i: number) => !(Number(d.getIn(['routes', i, 'realtime', 'max_sessions_per_token'])) >= max);
  const missing = realtimeRoutes(doc).filter((i) => low(doc, i));
  if (missing.length) {
    for (const i of missing) doc.setIn(['routes', i, 'realtime', 'max_sessions_per_token'], max);
    out = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  }
  const check = parseDocument(out);
  if (check.errors.length || realtimeRoutes(check).some((i) => low(check, i))) {
    throw new Error('bench config: could not raise realtime max_sessions_per_token in routes.yaml');
  }
  return out;
}

const loopback = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/;

/**
 * Load tests reach loopback only: a channel whose base URL is neither the simulator nor loopback is switched off. A
 * channel's base URL is its own, else that of the last template it extends that sets one (`extends` may be a list:
 * `[openai, simulator]`; vendor files give no loopback URL, so only the demo's templates count).
 */
function disableRemoteChannels(doc: Document): void {
  const js = doc.toJS() as { channels?: { base_url?: string; extends?: string | string[] }[]; templates?: Record<string, { base_url?: string }> };
  (js.channels ?? []).forEach((c, i) => {
    const chain = c.extends === undefined ? [] : Array.isArray(c.extends) ? c.extends : [c.extends];
    const inherited = chain.map((t) => js.templates?.[t]?.base_url).filter((b): b is string => Boolean(b)).at(-1);
    const base = String(c.base_url ?? inherited ?? '');
    if (!base.includes('${env:SWITCHYARD_SIM_URL') && !loopback.test(base)) doc.setIn(['channels', i, 'enabled'], false);
  });
}
