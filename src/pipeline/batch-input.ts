// Stage helper: a submit that runs the requests of one of the caller's batch input files (route `task.input_file`).
// The file's lines were checked when it was uploaded; what may have changed since is checked again before anything
// is reserved: the lines call the endpoint the batch names, the caller may still use their model, the model still has
// a batch price, and the channel holding the file still runs it in a batch. The vendor gets its own id for the file.
import { GatewayError, clip } from '../http/errors.js';
import { batchPrice } from '../billing/batch-price.js';
import { ownFile } from './own-records.js';
import { checkAccess } from './model-access.js';
import type { Exchange, Inbound, Resolved } from './exchange.js';

const bad = (message: string) => new GatewayError('invalid_request', message);

/** Throws file_not_found (404), invalid_request (400) naming the field or the line. */
export async function readBatch(ex: Exchange, i: Inbound): Promise<Resolved> {
  const { g } = ex;
  const { field, endpoint } = i.route.task!.inputFile!;
  const id = i.body[field];
  const file = await ownFile(g, i, typeof id === 'string' ? id : undefined).catch((err: GatewayError) => {
    throw Object.assign(err, { message: `\`${field}\`: ${err.message}` });
  });
  const lines = file.lines;
  if (!lines) throw bad(`\`${field}\`: file ${file.id} is not a batch input file (purpose ${file.purpose})`);
  ex.ctx.model = lines.model;
  if (i.body[endpoint] !== lines.url) throw bad(`Line 1 of file ${file.id}: \`url\` ${lines.url} differs from the batch's \`${endpoint}\` (${clip(String(i.body[endpoint]))})`);
  const lineRoute = g.runtime.routes.find((r) => r.id === lines.route);
  if (!lineRoute) throw bad(`Line 1 of file ${file.id}: \`url\` ${lines.url} is not served here any more`);
  const at = `Line 1 of file ${file.id}`;
  const model = (() => {
    try {
      return checkAccess(g, i.token, lines.model, lineRoute.operation);
    } catch (err) {
      const e = err as GatewayError;
      throw bad(`${at}: ${e.message}`).because(e.reason ?? `model ${lines.model} refused for the token`);
    }
  })();
  const runs = g.runtime.candidates(i.token.group, lines.model, i.route.operation).some((c) => c.id === file.channel);
  if (!runs) {
    throw bad(`${at}: model ${lines.model} cannot run in a batch: its vendor has no batch API here`)
      .because(`channel ${file.channel}, which holds the file, is not an enabled channel of group ${i.token.group} whose operation ${i.route.operation} serves ${lines.model}`);
  }
  const price = batchPrice(g.runtime.prices.get(lines.model)!);
  if (!price) throw bad(`${at}: model ${lines.model} has no batch price here`).because(`model ${lines.model} has no \`price.batch\``);
  return { ...i, body: { ...i.body, [field]: file.upstream_id }, model: lines.model, price: model, pin: file.channel, batch: { file, price } };
}
