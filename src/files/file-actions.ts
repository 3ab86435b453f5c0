// Actions `get`, `list`, `content` and `delete` of policy `files`: the caller's files, in OpenAI's shapes. Another
// user's file, or an unknown one, is 404 alike. The bytes are streamed from the vendor that holds them, never kept.
import type { Caller, Exchange } from '../pipeline/exchange.js';
import { queryOf } from '../pipeline/match-route.js';
import { addedMs } from '../pipeline/context.js';
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { channelTarget } from '../transport/channel-target.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { send } from '../transport/http-client.js';
import { relayBody } from '../transport/relay-body.js';
import { fillPath } from '../transform/fill-path.js';
import type { CatalogQuery } from '../store/task-catalog.js';
import { fileObject, type FileRecord } from '../records/file-record.js';
import { ownFile } from '../pipeline/own-records.js';

export async function getFile(ex: Exchange, c: Caller): Promise<void> {
  sendJson(ex.res, 200, fileObject(await ownFile(ex.g, c, c.params.id)));
}

// OpenAI's list conventions for files: up to 10,000 a page, newest first.
const maxLimit = 10_000;
/** Catalog reads per page at most, when entries of expired records have to be skipped. */
const maxReads = 4;

export async function listFiles(ex: Exchange, c: Caller): Promise<void> {
  const q = queryOf(ex.ctx.url);
  const limit = q.limit === undefined ? maxLimit : /^[0-9]{1,5}$/.test(q.limit) ? Number(q.limit) : NaN;
  if (!(limit >= 1 && limit <= maxLimit)) throw new GatewayError('invalid_request', `\`limit\` must be a whole number from 1 to ${maxLimit}`);
  const order = q.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new GatewayError('invalid_request', '`order` must be `asc` or `desc`');
  if (q.purpose !== undefined && !/^[a-z][a-z0-9_-]{0,63}$/.test(q.purpose)) throw new GatewayError('invalid_request', '`purpose` must be a purpose such as `batch`');
  const query: CatalogQuery = { user: c.token.user, family: q.purpose || undefined, limit, order, after: q.after || undefined };
  const found: FileRecord[] = [];
  const expired: string[] = [];
  let more = false;
  for (let read = 0, after = query.after; read < maxReads && found.length < limit; read++) {
    const page = await ex.g.files.catalog.page({ ...query, after, limit: limit - found.length });
    if (!page && read === 0) throw new GatewayError('invalid_request', `\`after\` must be the id of one of your files listed here (got ${clip(after ?? '')})`);
    if (!page) break;
    const recs = await Promise.all(page.ids.map((id) => ex.g.files.get(id)));
    page.ids.forEach((id, i) => (recs[i] ? found.push(recs[i]) : expired.push(id)));
    more = page.more;
    if (!more) break;
    after = page.ids.at(-1);
  }
  await Promise.all(expired.map((id) => ex.g.files.catalog.remove(id)));
  sendJson(ex.res, 200, { object: 'list', data: found.map(fileObject), first_id: found[0]?.id ?? null, last_id: found.at(-1)?.id ?? null, has_more: more });
}

const passHeaders = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'last-modified', 'etag'];

/** The bytes, streamed from the vendor's content path with the channel's key (Range passes through). */
export async function fileContent(ex: Exchange, c: Caller): Promise<void> {
  const { g, ctx, req, res } = ex;
  const rec = await ownFile(g, c, c.params.id);
  const channel = g.runtime.channel(rec.channel);
  const path = channel?.operations.get(rec.operation)?.contentPath;
  ctx.channel = rec.channel;
  if (!channel || !path) {
    throw new GatewayError('upstream_error', 'The vendor that holds this file is not configured any more')
      .because(`channel ${rec.channel} or its operation ${rec.operation} (content.path) is gone from the config`);
  }
  const range = typeof req.headers.range === 'string' ? { range: req.headers.range } : undefined;
  const t0 = performance.now();
  const upstream = await send(channelTarget(channel, { method: 'GET', path: fillPath(path, { upstream_id: rec.upstream_id }), accept: '*/*', forward: range }), ctx.abort.signal)
    .catch((err: Error) => { throw new GatewayError('upstream_error', 'The vendor did not answer').because(`the content path of channel ${channel.id}: ${err.message}`); });
  ctx.upstreamMs += performance.now() - t0;
  const status = upstream.statusCode ?? 502;
  if (status !== 200 && status !== 206) {
    upstream.resume();
    if (status === 416) throw new GatewayError('invalid_request', 'Requested range not satisfiable', { status: 416 });
    if (status === 404) throw new GatewayError('file_not_found', `File ${rec.id} is no longer at its vendor`).because(`the content path of channel ${channel.id} answered 404`);
    throw new GatewayError('bad_response', 'copy_response_body_failed: the vendor\'s file could not be fetched').because(`the content path of channel ${channel.id} answered HTTP ${status}`);
  }
  const headers: Record<string, string> = { 'cache-control': 'private, max-age=3600', 'x-switchyard-added-ms': addedMs(ctx).toFixed(3) };
  for (const h of passHeaders) if (upstream.headers[h]) headers[h] = String(upstream.headers[h]);
  res.writeHead(status, headers);
  ctx.outcome = await relayBody(ctx, upstream, res, channel.timeouts.idle_ms);
  if (ctx.outcome === 'upstream_cut') ctx.reason = `the content path of channel ${channel.id} cut the file before its end${ctx.reason ? `: ${ctx.reason}` : ''}`;
}

/**
 * Deleted at the vendor (the operation's `delete`; a 404 there means already gone), then here. No answer or a
 * server error keeps the record (502: the client retries).
 */
export async function deleteFile(ex: Exchange, c: Caller): Promise<void> {
  const { g, ctx } = ex;
  const rec = await ownFile(g, c, c.params.id);
  const channel = g.runtime.channel(rec.channel);
  const call = channel?.operations.get(rec.operation)?.delete;
  ctx.channel = rec.channel;
  if (channel && call) {
    const status = await fetchUpstream(channel, { method: call.method, path: fillPath(call.path, { upstream_id: rec.upstream_id }), signal: ctx.abort.signal }).then((r) => r.status, () => 0);
    if (status === 0 || status === 429 || status >= 500) {
      throw new GatewayError('upstream_error', `The vendor could not delete the file (${status ? `HTTP ${status}` : 'no answer'}); nothing was deleted, retry`);
    }
    if (status >= 300 && status !== 404) g.log.warn({ file_id: rec.id, channel: channel.id, upstream_status: status }, 'the vendor refused to delete a file');
  }
  await g.files.delete(rec.id);
  g.log.info({ file_id: rec.id, token_id: c.token.id }, 'file deleted');
  sendJson(ex.res, 200, { id: rec.id, object: 'file', deleted: true });
}
