// Action `upload` of policy `files`: a batch input file arrives as multipart (spooled to disk as it comes, never held
// in memory), is read back line by line and checked (check-lines.ts), then streamed from the spool to a channel that
// will run its batch. Nothing reaches a vendor before every line has passed; the record maps the gateway's id to the
// vendor's, with its owner, channel and what its lines ask for.
import type { Gateway } from '../pipeline/gateway.js';
import type { CompiledChannel, CompiledFilesRoute } from '../config/runtime.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import { readRequest } from '../pipeline/read-request.js';
import { noteAttempt, record } from '../pipeline/dispatch.js';
import { orderCandidates } from '../pipeline/select-channel.js';
import { GatewayError, clip } from '../http/errors.js';
import { encodeMultipart, isSpooled } from '../http/multipart.js';
import { sendJson } from '../http/send-json.js';
import { channelTarget } from '../transport/channel-target.js';
import { send, UpstreamFailure } from '../transport/http-client.js';
import { readLimited } from '../transport/read-limited.js';
import { wholeNumber } from '../http/body-numbers.js';
import { LineChecker } from './check-lines.js';
import { readLines } from './read-lines.js';
import { fileObject, newFileId, type FileRecord } from '../records/file-record.js';

const bad = (message: string) => new GatewayError('invalid_request', message);

export async function uploadFile(ex: Exchange, c: Caller): Promise<void> {
  const { g, ctx } = ex;
  const rules = c.route.files!;
  const { body } = await readRequest(ex, c, 'json');
  const file = body.file;
  if (!isSpooled(file)) throw bad('`file` must be a file part of a multipart/form-data upload');
  if (body.purpose !== rules.purpose) throw bad(`\`purpose\` must be "${rules.purpose}": the only files kept here are batch input files`);
  if (file.size > rules.maxBytes) throw bad(`\`file\` is ${file.size} bytes; a batch input file may have at most ${rules.maxBytes}`);
  const expiresS = readExpiry(body, rules);
  const checker = new LineChecker(g, c.token, rules, c.route.operation);
  for await (const line of readLines(file.path, checker.maxLineBytes())) {
    if (ctx.abort.signal.aborted) throw new GatewayError('upstream_error', 'client closed the connection');
    checker.add(line);
  }
  const { summary, channels } = checker.finish();
  ctx.model = summary.model;
  // The form goes on as it came, with the expiry the record keeps made explicit (the vendor's default may differ).
  const fields = { ...body, 'expires_after[anchor]': 'created_at', 'expires_after[seconds]': String(expiresS) };
  const { channel, upstreamId } = await store(ex, c, channels, fields, summary.model);
  const now = Date.now();
  const created = Math.floor(now / 1000);
  const rec: FileRecord = {
    id: newFileId(), owner: { user: c.token.user, token: c.token.id }, channel: channel.id, operation: c.route.operation,
    upstream_id: upstreamId, purpose: rules.purpose, filename: file.filename.slice(0, 256), bytes: file.size,
    created_at: created, expires_at: created + expiresS, lines: summary,
  };
  await g.files.create(rec, now);
  g.log.info({ file_id: rec.id, token_id: c.token.id, channel: channel.id, model: summary.model, lines: summary.count, bytes: rec.bytes }, 'file stored');
  sendJson(ex.res, 200, fileObject(rec));
}

/** `expires_after[seconds]` within the route's bounds; the route's default when absent. */
function readExpiry(body: Record<string, unknown>, rules: CompiledFilesRoute): number {
  const v = body['expires_after[seconds]'];
  const { min, max } = rules.expiresS;
  if (v === undefined || v === null || v === '') return rules.expiresS.default;
  const n = wholeNumber(v);
  if (n === undefined || n < min || n > max) throw bad(`\`expires_after[seconds]\` must be a whole number of seconds from ${min} to ${max}`);
  return n;
}

/**
 * Streams the form to the first channel that takes it: throttling, server errors and unreachable vendors move on to
 * the next one (a file stored at a vendor that did not answer is only storage, never a charge); any other refusal is
 * the file's, relayed as 400.
 */
async function store(ex: Exchange, c: Caller, channels: readonly CompiledChannel[], fields: Record<string, unknown>, model: string): Promise<{ channel: CompiledChannel; upstreamId: string }> {
  const { g, ctx } = ex;
  const cands = orderCandidates(channels).filter((ch) => g.breakers.allow(ch.id)).slice(0, g.runtime.maxAttempts);
  if (!cands.length) throw new GatewayError('no_available_channel', `No channel is available to store a batch of model ${clip(model)} (its channels are failing; retry later)`);
  let last = 'no answer';
  for (const channel of cands) {
    const op = channel.operations.get(c.route.operation)!;
    const upstreamModel = channel.modelMap[model] ?? model;
    const mapped = (op.request ? await op.request.run(fields, { model: upstreamModel }) : fields) as Record<string, unknown>;
    ctx.channel = channel.id;
    const t0 = performance.now();
    let status: number;
    let answer: Buffer;
    try {
      const res = await send(channelTarget(channel, { method: 'POST', path: op.path, body: encodeMultipart(mapped) }), ctx.abort.signal);
      status = res.statusCode ?? 502;
      answer = await readLimited(res, 1 << 20, channel.timeouts.idle_ms);
      noteAttempt(ex, channel.id, t0, { status });
      record(g, channel.id, status, undefined);
    } catch (err) {
      const kind = err instanceof UpstreamFailure ? err.kind : 'network';
      noteAttempt(ex, channel.id, t0, { error: `${kind}: ${(err as Error).message}` });
      if (ctx.abort.signal.aborted) throw new GatewayError('upstream_error', 'client closed the connection');
      g.breakers.failure(channel.id);
      last = kind;
      continue;
    }
    if (status === 429 || status >= 500) { last = `HTTP ${status}`; continue; }
    if (status >= 400) {
      throw new GatewayError('invalid_request', `The vendor refused the file (HTTP ${status})`).because(`the ${c.route.operation} call of channel ${channel.id} answered HTTP ${status}: ${clip(g.redactor.text(answer.toString('utf8')), 300)}`);
    }
    return { channel, upstreamId: await upstreamIdOf(g, channel, c.route.operation, answer) };
  }
  throw new GatewayError('upstream_error', `The file could not be stored (${last}); nothing was kept, retry`);
}

/** The vendor's id for the file, from its answer (the operation's `response`, else its `id`). */
async function upstreamIdOf(g: Gateway, channel: CompiledChannel, operation: string, answer: Buffer): Promise<string> {
  const op = channel.operations.get(operation)!;
  let parsed: unknown;
  try { parsed = JSON.parse(answer.toString('utf8')); } catch { parsed = undefined; }
  const mapped = (op.response && parsed !== undefined ? await op.response.run(parsed, {}).catch(() => undefined) : parsed) as { upstream_id?: unknown; id?: unknown } | undefined;
  const id = mapped?.upstream_id ?? mapped?.id;
  if (typeof id !== 'string' || !id) {
    g.log.error({ channel: channel.id }, 'a vendor stored a file but its answer names no id; the file is left there');
    throw new GatewayError('bad_response', 'copy_response_body_failed: the vendor\'s answer to the upload names no file')
      .because(`the ${operation} answer of channel ${channel.id} gave no id`);
  }
  return id;
}
