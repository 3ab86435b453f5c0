// Config written for an earlier release. Every key removed or renamed since is either read as its replacement, with
// a deprecation warning at its line, or refused with an error naming the replacement (where no reading is safe).
// Runs on the parsed files before the schema layer, so the schema sees today's keys; CHANGELOG.md lists each rule.
import type { Diagnostic } from './diagnostics.js';
import type { YamlFile } from './load-yaml.js';
import { fieldChain } from './field-chain.js';

type Obj = Record<string, unknown>;

interface Reporter {
  /** Read as its replacement: a warning. */
  deprecated(pointer: string, message: string): void;
  /** No safe reading: an error; the schema layer's own "is not allowed" for the same key is dropped. */
  refused(pointer: string, message: string): void;
}

export interface Upgraded {
  /** Drops the schema layer's findings about keys this layer already refused (one error per key, the helpful one). */
  dropEchoes(diags: Diagnostic[]): void;
}

export function upgradeConfig(routes: YamlFile, channels: YamlFile, diags: Diagnostic[]): Upgraded {
  const refusedAt: { file: string; pointer: string; own: Diagnostic }[] = [];
  const reporter = (f: YamlFile): Reporter => ({
    deprecated: (pointer, message) => diags.push({ level: 'warning', file: f.name, path: pointer, ...f.locate(pointer), message: `deprecated: ${message}` }),
    refused: (pointer, message) => {
      const own: Diagnostic = { level: 'error', file: f.name, path: pointer, ...f.locate(pointer), message };
      refusedAt.push({ file: f.name, pointer, own });
      diags.push(own);
    },
  });
  if (isObj(routes.data)) upgradeRoutes(routes.data, reporter(routes));
  if (isObj(channels.data)) upgradeChannels(channels.data, reporter(channels));
  return {
    dropEchoes(all) {
      const echoes = all.filter((d) => d.level === 'error' && refusedAt.some((r) => r.own !== d && r.file === d.file && covers(r.pointer, d)));
      for (const e of echoes) all.splice(all.indexOf(e), 1);
    },
  };
}

/** A schema error about the refused key: at its parent, naming the key, or anywhere inside it. */
function covers(pointer: string, d: Diagnostic): boolean {
  const key = pointer.slice(pointer.lastIndexOf('/') + 1);
  const parent = pointer.slice(0, pointer.lastIndexOf('/'));
  return d.path === pointer || d.path.startsWith(`${pointer}/`) || (d.path === parent && d.message.includes(`.${key}\``));
}

// ---- routes.yaml ----

function upgradeRoutes(file: Obj, r: Reporter): void {
  const routes = Array.isArray(file.routes) ? file.routes : [];
  routes.forEach((route, i) => {
    if (!isObj(route)) return;
    const p = `/routes/${i}`;
    // YAML aliases share one object between routes (`task: *art_submit`): each route edits its own copy.
    if (isObj(route.task)) route.task = { ...route.task };
    priceField(route, route, 'units', `${p}/units`, 1, r);
    if (isObj(route.task)) {
      priceField(route, route.task, 'seconds', `${p}/task/seconds`, 5, r);
      saturatedAnswer(route, `${p}/task/saturated_answer`, r);
    }
  });
}

/**
 * `units` (a route's) and `task.seconds` were JSONata picking a body field; `price_inputs.units` / `.seconds` list
 * the fields instead. A plain pick (fields, then the old default) reads the same; anything else is refused.
 */
function priceField(route: Obj, holder: Obj, key: 'units' | 'seconds', pointer: string, oldDefault: number, r: Reporter): void {
  const source = holder[key];
  if (source === undefined) return;
  delete holder[key];
  const old = pointer.split('/').slice(3).join('.');
  const target = `price_inputs.${key}`;
  const inputs = isObj(route.price_inputs) ? route.price_inputs : undefined;
  if (inputs?.[key] !== undefined) return r.refused(pointer, `\`${old}\` was replaced by \`${target}\`, which this route already sets: remove \`${old}\``);
  const chain = typeof source === 'string' ? fieldChain(source) : undefined;
  if (!chain?.fields.length || (chain.fallback !== undefined && chain.fallback !== oldDefault)) {
    return r.refused(pointer, `\`${old}\` was replaced by \`${target}\`: the body fields to read, the first present one counting (e.g. \`price_inputs: { ${key}: [${key === 'units' ? 'n' : 'seconds, duration'}] }\`), with the model's \`price.${key}\` bounds and default; this expression is not a plain field pick, so write \`${target}\` yourself`);
  }
  route.price_inputs = { ...inputs, [key]: chain.fields };
  r.deprecated(pointer, `\`${old}\` was replaced by \`${target}\`; read as \`price_inputs: { ${key}: [${chain.fields.join(', ')}] }\`: write that instead`);
}

/**
 * `task.saturated_answer` (JSONata, $message) answered the saturated in-flight limit in the family's shape; the
 * route's `error_answer` ($status, $code, $message) answers every error, so the old answer is kept for
 * `too_many_requests` and every other error keeps the usual shape (an error_answer that returns nothing).
 */
function saturatedAnswer(route: Obj, pointer: string, r: Reporter): void {
  const task = route.task as Obj;
  const source = task.saturated_answer;
  if (source === undefined) return;
  delete task.saturated_answer;
  if (route.error_answer !== undefined) {
    return r.refused(pointer, '`task.saturated_answer` was replaced by the route\'s `error_answer`, which this route already sets (it answers saturation too, `$code = "too_many_requests"`): remove `task.saturated_answer`');
  }
  if (typeof source !== 'string') return r.refused(pointer, '`task.saturated_answer` was replaced by the route\'s `error_answer` (JSONata; bindings $status, $code, $message)');
  route.error_answer = `$code = "too_many_requests" ? (\n${source}\n)`;
  r.deprecated(pointer, '`task.saturated_answer` was replaced by the route\'s `error_answer` (every error on the route; $status, $code, $message): read as `error_answer: $code = "too_many_requests" ? (<this expression>)`, other errors keeping their usual shape: write that instead');
}

// ---- channels.yaml ----

function upgradeChannels(file: Obj, r: Reporter): void {
  if (isObj(file.dispatch)) breakerFailures(file.dispatch, r);
  const channels = Array.isArray(file.channels) ? file.channels : [];
  channels.forEach((ch, i) => { if (isObj(ch)) upgradeChannel(ch, `/channels/${i}`, r); });
  if (isObj(file.templates)) for (const [name, t] of Object.entries(file.templates)) if (isObj(t)) upgradeChannel(t, `/templates/${name}`, r);
}

/** `dispatch.breaker_failures` (consecutive failures) became a failure rate over a window; its count is the minimum. */
function breakerFailures(dispatch: Obj, r: Reporter): void {
  const n = dispatch.breaker_failures;
  if (n === undefined) return;
  delete dispatch.breaker_failures;
  const p = '/dispatch/breaker_failures';
  if (dispatch.breaker_min_requests !== undefined) {
    return r.refused(p, '`dispatch.breaker_failures` was replaced by `dispatch.breaker_min_requests` (with `breaker_failure_rate` and `breaker_window_ms`), which is set too: remove `breaker_failures`');
  }
  if (!Number.isInteger(n) || (n as number) < 1) return r.refused(p, '`dispatch.breaker_failures` was replaced by `dispatch.breaker_min_requests` (a whole number ≥ 1)');
  dispatch.breaker_min_requests = n;
  r.deprecated(p, `\`dispatch.breaker_failures\` (consecutive failures) was replaced by a failure rate: read as \`breaker_min_requests: ${String(n)}\` (the breaker opens once ${String(n)} requests in \`breaker_window_ms\`, default 60 s, failed at \`breaker_failure_rate\`, default 0.5, or more): write that instead`);
}

function upgradeChannel(ch: Obj, p: string, r: Reporter): void {
  if (isObj(ch.auth)) queryScheme(ch.auth, `${p}/auth`, r);
  if (!isObj(ch.operations)) return;
  const ops: Obj = ch.operations;
  for (const [name, op] of Object.entries(ops)) {
    if (!isObj(op) || (op.stream_end === undefined && op.error === undefined)) continue;
    // A copy, as for routes: an operation may be shared through a YAML alias.
    ch.operations = ch.operations === ops ? { ...ops } : ch.operations;
    const copy = { ...op };
    (ch.operations as Obj)[name] = copy;
    operationSlots(copy, `${p}/operations/${name}`, r);
  }
}

/** The `query` auth scheme (the key in a query parameter `param`) was removed. */
function queryScheme(auth: Obj, p: string, r: Reporter): void {
  if (auth.scheme === 'query') {
    delete auth.scheme;
    delete auth.param;
    return r.refused(`${p}/scheme`, 'auth scheme `query` was removed (no shipped vendor needs its key in the URL): use `header` (`header`, `key`, optional `prefix`) with the header the vendor also accepts, or `bearer`');
  }
  if (auth.param !== undefined) {
    delete auth.param;
    r.refused(`${p}/param`, '`auth.param` belonged to the removed `query` scheme: remove it');
  }
}

/** An operation's `stream_end` and `error` slots were removed (their work moved to dialects and a fixed reading). */
function operationSlots(op: Obj, p: string, r: Reporter): void {
  const end = op.stream_end;
  if (end !== undefined) {
    delete op.stream_end;
    if (end === 'done') r.deprecated(`${p}/stream_end`, '`stream_end: done` is how every unified stream ends (`data: [DONE]`), and the key was removed: delete it');
    else r.refused(`${p}/stream_end`, '`stream_end` was removed: a vendor whose stream ends otherwise than with `data: [DONE]` speaks a dialect: name it in the operation (`dialect`), and list the events that end its stream cleanly in routes.yaml `dialects.<name>.stream_end`');
  }
  if (op.error !== undefined) {
    delete op.error;
    r.refused(`${p}/error`, '`error` was removed: a vendor\'s 4xx is relayed with its status, its message and code read from `{error: {message, code, type}}` or a flat `{message, code}` (no per-operation mapping remains): remove `error`');
  }
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
