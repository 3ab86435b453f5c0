// A batch input file, line by line as it is read back from the spool: each line must be a request the caller could
// send to its url's route (that route's body schema, the model's access and price inputs), every line on one url and
// one model that a channel of the caller's group runs in a batch, each `custom_id` once. The first fault refuses the
// upload (400 naming the line, before anything reaches a vendor); what the lines ask for is summed for the reservation.
import { createHash } from 'node:crypto';
import type { ErrorObject } from 'ajv';
import type { Gateway } from '../pipeline/gateway.js';
import type { CompiledChannel, CompiledFilesRoute, CompiledRoute } from '../config/runtime.js';
import type { TokenRecord } from '../store/token-store.js';
import type { Model } from '../types/generated/channels.js';
import type { ChosenPrice, CompiledPrice } from '../billing/price-rules.js';
import { GatewayError, clip } from '../http/errors.js';
import { parseJsonObject } from '../http/read-body.js';
import { describeAjvErrors } from '../config/schema-registry.js';
import { checkAccess } from '../pipeline/model-access.js';
import { choosePrice } from '../billing/choose-price.js';
import { readPriceInputs } from '../billing/price-inputs.js';
import { batchPrice, type BatchLines } from '../billing/batch-price.js';
import type { LineSummary } from '../records/file-record.js';
import type { Line } from './read-lines.js';

/** Room for a line's envelope (`custom_id`, `method`, `url`) beside its body. */
const envelopeBytes = 65_536;

interface First { url: string; route: CompiledRoute; model: string; entry: Model; cp: CompiledPrice; defaults: ChosenPrice; channels: readonly CompiledChannel[] }

const bad = (message: string) => new GatewayError('invalid_request', message);
const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

export class LineChecker {
  private readonly ids = new Set<string>();
  private first?: First;
  private readonly sums: BatchLines = { count: 0, bytes: 0, max_line_bytes: 0, completion_tokens: 0, open_choices: 0 };

  /** `storeOp`: the upload route's operation, which the chosen channel must have to hold the file. */
  constructor(private readonly g: Gateway, private readonly token: TokenRecord, private readonly rules: CompiledFilesRoute, private readonly storeOp: string) {}

  /** The most bytes a line may have: the rules' own bound, else the largest body a line route takes and its envelope. */
  maxLineBytes(): number {
    if (this.rules.maxLineBytes) return this.rules.maxLineBytes;
    const limits = [...this.rules.lines.values()].map((id) => this.route(id)?.limits.maxBodyBytes ?? 0);
    return Math.max(...limits) + envelopeBytes;
  }

  /** Throws invalid_request (400) naming the line. */
  add(line: Line): void {
    const at = `Line ${line.n}`;
    if (++this.sums.count > this.rules.maxLines) throw bad(`The file has more than ${this.rules.maxLines} requests (${at})`);
    if (line.raw.every((b) => b === 0x20 || b === 0x09)) throw bad(`${at} is empty: every line is one request`);
    const v = this.parse(at, line.raw);
    const { custom_id: id, method, url, body } = v;
    if (typeof id !== 'string' || !id || id.length > 512) throw bad(`${at}: \`custom_id\` must be a string of 1 to 512 characters`);
    // A digest per id keeps 50,000 of them in a few MB whatever their length.
    const key = createHash('sha256').update(id).digest('base64').slice(0, 22);
    if (this.ids.has(key)) throw bad(`${at}: \`custom_id\` ${clip(JSON.stringify(id))} is already used by an earlier line; each must be unique`);
    this.ids.add(key);
    if (method !== 'POST') throw bad(`${at}: \`method\` must be "POST"`);
    if (typeof url !== 'string' || !this.rules.lines.has(url)) throw bad(`${at}: \`url\` must be one of ${[...this.rules.lines.keys()].join(', ')}`);
    if (this.first && url !== this.first.url) throw bad(`${at}: \`url\` ${clip(url)} differs from line 1's (${this.first.url}): a batch calls one endpoint`);
    if (!isObject(body)) throw bad(`${at}: \`body\` must be a JSON object`);
    const f = (this.first ??= this.start(at, url, body));
    if (line.raw.length > f.route.limits.maxBodyBytes + envelopeBytes) throw bad(`${at} is larger than its endpoint takes (${f.route.limits.maxBodyBytes} bytes)`);
    if (body.model !== f.model) throw bad(`${at}: \`body.model\` ${clip(JSON.stringify(body.model ?? null))} differs from line 1's (${f.model}): a batch runs one model`);
    this.checkBody(at, f, body);
    this.count(at, f, body, line.raw.length);
  }

  /** What the lines ask for, and the channels that may hold the file (best first). */
  finish(): { summary: LineSummary; channels: readonly CompiledChannel[] } {
    const f = this.first;
    if (!f) throw bad('The file has no requests: a batch input file has one JSON request a line');
    return { summary: { url: f.url, route: f.route.id, model: f.model, ...this.sums }, channels: f.channels };
  }

  private parse(at: string, raw: Buffer): Record<string, unknown> {
    try {
      return parseJsonObject(raw, (this.first?.route.limits.maxJsonDepth ?? 64) + 1);
    } catch (err) {
      throw bad(`${at}: ${(err as Error).message.replace(/^Request body/, 'the line')}`);
    }
  }

  private route(id: string): CompiledRoute | undefined {
    return this.g.runtime.routes.find((r) => r.id === id);
  }

  /** The first line names the batch's url and model: its route, the caller's access, its batch price and channels. */
  private start(at: string, url: string, body: Record<string, unknown>): First {
    const route = this.route(this.rules.lines.get(url)!);
    if (!route) throw bad(`${at}: \`url\` ${url} is not served here`).because(`routes.yaml files.lines names a route that is not compiled for ${url}`);
    const model = body.model;
    if (typeof model !== 'string' || !model) throw bad(`${at}: \`body.model\` is required`);
    let entry: Model;
    try {
      entry = checkAccess(this.g, this.token, model, route.operation);
    } catch (err) {
      const e = err as GatewayError;
      throw bad(`${at}: ${e.message}`).because(e.reason ?? `model ${model} refused for the token`);
    }
    const channels = this.g.runtime.candidates(this.token.group, model, this.rules.operation).filter((c) => c.operations.has(this.storeOp));
    if (!channels.length) {
      throw bad(`${at}: model ${clip(model)} cannot run in a batch: its vendor has no batch API here`)
        .because(`no enabled channel of group ${this.token.group} serving ${model} has the operations ${this.rules.operation} and ${this.storeOp}`);
    }
    const cp = this.g.runtime.prices.get(model)!;
    if (!batchPrice(cp)) throw bad(`${at}: model ${clip(model)} has no batch price here`).because(`model ${model} has no \`price.batch\``);
    return { url, route, model, entry, cp, defaults: choosePrice(cp, {}), channels };
  }

  private checkBody(at: string, f: First, body: Record<string, unknown>): void {
    // A kept conversation is continued by the gateway, which is not in a batch's path: the vendor would not know its id.
    const continues = f.route.store?.continues;
    if (continues && body[continues] !== undefined && body[continues] !== null) throw bad(`${at}: \`body.${continues}\` cannot be used in a batch (the conversations this gateway keeps are not the vendor's)`);
    const family = this.g.runtime.modelSchemas.get(f.model);
    for (const validate of [f.route.validate, family]) {
      if (validate && !validate(body)) throw bad(`${at}: ${describeAjvErrors(within(validate.errors))}`);
    }
  }

  /** Every price input is checked as the route checks it; a line is sent as it is, so a limit above the model's is refused. */
  private count(at: string, f: First, body: Record<string, unknown>, bytes: number): void {
    let chosen: ChosenPrice;
    let inputs: ReturnType<typeof readPriceInputs>;
    try {
      chosen = choosePrice(f.cp, body);
      inputs = readPriceInputs(f.route.priceInputs, f.entry, body);
    } catch (err) {
      throw bad(`${at}: ${(err as Error).message.replace(/`([^`]+)`/, '`body.$1`')}`);
    }
    if (chosen !== f.defaults) {
      const fields = Object.keys(chosen.chose ?? {}).join(', ') || 'a price option';
      throw bad(`${at}: ${fields} must be left at the model's default in a batch (its requests are billed at the batch price)`);
    }
    const over = inputs.clamped[0];
    if (over) throw bad(`${at}: \`body.${over.field}\` must be a whole number of tokens from 1 to ${over.to} (a batch sends each line as it is)`);
    const s = this.sums;
    s.bytes += bytes;
    s.max_line_bytes = Math.max(s.max_line_bytes, bytes);
    if (inputs.completionTokens === undefined) s.open_choices += inputs.choices;
    else s.completion_tokens += inputs.completionTokens * inputs.choices;
  }
}

/** A line's schema errors name its fields inside `body`. */
const within = (errors: ErrorObject[] | null | undefined) => errors?.map((e) => ({ ...e, instancePath: `/body${e.instancePath}` }));
