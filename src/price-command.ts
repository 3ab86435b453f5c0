// `switchyard price MODEL [--usage JSON] [--from DIALECT|OPERATION] [--body JSON] [--units N] [--seconds S]`: what a
// usage costs under the config's price for a model, line by line, and what the request would reserve. The usage is
// the gateway's own record (`{prompt_tokens, completion_tokens, details, seconds}`) or, with --from, a vendor's usage
// object as its answer carries it (`--from <dialect>`, `--from chat_completions`), read by the same paths
// billing reads.
import { parseArgs } from 'node:util';
import { loadRuntime, defaultConfigDir } from './config/load-config.js';
import type { Runtime } from './config/runtime.js';
import { choosePrice } from './billing/choose-price.js';
import { chargeOf, reservationFor } from './billing/price.js';
import { readPriceInputs } from './billing/price-inputs.js';
import { GatewayError } from './http/errors.js';
import type { Usage } from './transform/usage.js';
import { readUsage, type CompiledUsagePaths } from './transform/usage-paths.js';

export function priceCommand(args: string[]): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: {
    dir: { type: 'string' }, usage: { type: 'string' }, from: { type: 'string' }, body: { type: 'string' },
    units: { type: 'string' }, seconds: { type: 'string' }, json: { type: 'boolean' },
  } });
  const model = positionals[0];
  if (!model) { console.error('usage: switchyard price MODEL [--usage JSON] [--from DIALECT|OPERATION] [--body JSON] [--units N] [--seconds S] [--json]'); return 2; }
  const { runtime } = loadRuntime(values.dir ?? defaultConfigDir());
  const compiled = runtime.prices.get(model);
  if (!compiled) { console.error(`no price for model ${model} in the config`); return 1; }
  try {
    const body = parse(values.body ?? '{}', '--body') as Record<string, unknown>;
    const chosen = choosePrice(compiled, body);
    const model_ = runtime.models.get(model)!;
    const inputs = readPriceInputs({}, model_, body);
    const media = { units: count(values.units, '--units') ?? inputs.units, seconds: count(values.seconds, '--seconds') ?? model_.price.seconds?.default };
    const usage = values.usage === undefined ? undefined : usageOf(runtime, parse(values.usage, '--usage'), values.from);
    const charge = chargeOf(chosen, usage, media);
    const reserved = reservationFor(chosen, model_, { ...inputs, units: media.units, seconds: media.seconds }, Buffer.byteLength(JSON.stringify(body)), runtime.promptBytesPerToken).amount;
    if (values.json) { console.log(JSON.stringify({ model, chose: chosen.chose, usage, ...charge, reserved_for_body: reserved })); return 0; }
    print(model, chosen.chose, usage, charge, reserved, runtime.unitsPerUsd);
    return 0;
  } catch (err) {
    if (!(err instanceof GatewayError) && !(err instanceof SyntaxError)) throw err;
    console.error(err.message);
    return 2;
  }
}

/** The usage as the gateway records it, or read from a vendor's own usage object by a dialect's or operation's paths. */
function usageOf(runtime: Runtime, raw: unknown, from: string | undefined): Usage {
  if (from === undefined) {
    const u = raw as Usage;
    if (typeof u?.prompt_tokens !== 'number' || typeof u?.completion_tokens !== 'number') throw new GatewayError('invalid_request', '--usage needs prompt_tokens and completion_tokens (or --from naming the format it is in)');
    return u;
  }
  const paths: CompiledUsagePaths | undefined = runtime.usage.get(from) ?? runtime.routes.find((r) => r.dialect?.name === from)?.dialect?.usage;
  if (!paths) throw new GatewayError('invalid_request', `--from ${from}: no dialect or operation of that name declares usage paths`);
  // The usage object alone or the whole answer: the paths' `at` finds it in either.
  const usage = readUsage(paths, raw) ?? readUsage(paths, Object.fromEntries(paths.at.slice(0, 1).map((p) => [p[0].key, raw])));
  if (!usage) throw new GatewayError('invalid_request', `--usage holds no usage ${from} reports`);
  return usage;
}

function print(model: string, chose: Record<string, unknown> | undefined, usage: Usage | undefined, c: ReturnType<typeof chargeOf>, reserved: number, perUsd: number): void {
  console.log(`model ${model}${chose ? ` (${Object.entries(chose).map(([k, v]) => `${k}=${String(v)}`).join(', ')})` : ''}`);
  if (usage) console.log(`usage: ${usage.prompt_tokens} prompt, ${usage.completion_tokens} completion tokens${usage.details ? ` ${JSON.stringify(usage.details)}` : ''}`);
  if (c.tier !== undefined) console.log(`tier: prompt above ${c.tier} tokens, the whole request at its rates`);
  for (const l of c.lines) {
    const per = l.item === 'call' ? 'per call' : l.item === 'second' ? 'per second' : 'per million tokens';
    console.log(`  ${l.item.padEnd(20)} ${String(l.quantity).padStart(10)} × ${String(round(l.rate)).padStart(9)} ${per.padEnd(18)} = ${round(l.units)}`);
  }
  console.log(`charge: ${c.total} units ($${round(c.total / perUsd)})`);
  console.log(`a request with this body reserves ${reserved} units`);
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

function parse(text: string, flag: string): unknown {
  try { return JSON.parse(text); } catch { throw new GatewayError('invalid_request', `${flag} is not JSON`); }
}

function count(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(v)) throw new GatewayError('invalid_request', `${flag} must be a whole number`);
  return Number(v);
}
