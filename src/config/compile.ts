// Builds the immutable Runtime from checked config: validators, transforms and channel indexes made once.
import { createHash } from 'node:crypto';
import type { CheckedConfig, ResolvedChannel } from './check.js';
import type { SchemaRegistry } from './schema-registry.js';
import { compileTransform } from '../transform/compile-transform.js';
import { defaultLimits, defaultServerLimits, defaultTaskSettings, defaultTimeouts, type CompiledChannel, type CompiledDialect, type CompiledOperation, type CompiledRoute, type Runtime, type RouteLimitsResolved } from './runtime.js';
import type { RouteLimits, Route } from '../types/generated/routes.js';
import type { CompiledFilesRoute, CompiledTaskRoute } from './runtime.js';
import { compilePriceInputs } from '../billing/price-inputs.js';
import { compileDialects } from './compile-dialects.js';
import { compileOperationAudio, compileRouteAudio } from './compile-audio.js';
import { compileClientSecret, compileRealtime } from './compile-realtime.js';
import { compilePrice } from '../billing/price-rules.js';
import { compileUsagePaths } from '../transform/usage-paths.js';
import { compileProbe } from './compile-probe.js';
import { newPool } from '../transport/http-client.js';
import { extendsOf } from './vendor-files.js';
import { endpointTypesOf, serves } from './endpoint-types.js';

// The console's users sign in on the console, so their routes come and go with it.
const operatorPolicies = new Set(['admin', 'console', 'account']);

export function compileRuntime(cfg: CheckedConfig, registry: SchemaRegistry): Runtime {
  const dispatch = cfg.channels.dispatch ?? {};
  // Wall-clock: generous, since a busy or CPU-starved process stretches every evaluation (a tripped stream hook cuts
  // the stream); a runaway still stops within a second, and evaluation yields, so other requests keep being served.
  const transformMs = dispatch.transform_timeout_ms ?? 1000;
  const dialects = compileDialects(cfg.routes.dialects, transformMs);
  // The admin API and its console exist only with an operator's key: without one their routes are not compiled
  // (404, not 401).
  const routes = cfg.routes.routes.filter((r) => !operatorPolicies.has(r.policy) || cfg.adminKey).map((r): CompiledRoute => ({
    id: r.id,
    method: r.method,
    path: r.path,
    operation: r.operation ?? r.id,
    endpointType: r.endpoint_type,
    policy: r.policy,
    stream: r.stream ?? false,
    auth: r.auth ?? true,
    action: r.action,
    errorType: r.error_type,
    limits: resolveLimits(cfg.routes.defaults, r.limits),
    bodySchema: r.body_schema,
    validate: r.body_schema ? registry.get(r.body_schema) : undefined,
    model: r.model,
    modelExpr: r.model_expr ? compileTransform(r.model_expr, transformMs) : undefined,
    errorAnswer: r.error_answer ? compileTransform(r.error_answer, transformMs) : r.dialect ? dialects.get(r.dialect)?.error : undefined,
    multipart: r.multipart ?? false,
    priceInputs: compilePriceInputs(r.price_inputs),
    task: r.task ? compileTaskRoute(r.task, transformMs) : undefined,
    dialect: r.dialect ? dialects.get(r.dialect) : undefined,
    keyHeader: r.key_header ?? (r.dialect ? cfg.routes.dialects?.[r.dialect]?.key_header : undefined),
    keyQuery: r.key_query ?? (r.dialect ? cfg.routes.dialects?.[r.dialect]?.key_query : undefined),
    store: r.store && {
      namespace: r.store.namespace, enabledBy: r.store.enabled_by, continues: r.store.continues,
      ttlMs: (r.store.ttl_s ?? 30 * 86400) * 1000, maxBytes: r.store.max_bytes ?? 16 << 20,
    },
    answer: r.answer ? compileTransform(r.answer, transformMs) : undefined,
    audio: r.audio && compileRouteAudio(r.audio, transformMs),
    realtime: r.realtime && compileRealtime(r.realtime, transformMs),
    clientSecret: r.client_secret && compileClientSecret(r.client_secret, transformMs),
    files: r.files && compileFilesRoute(r.files),
  }));
  const channels = cfg.resolvedChannels.map((c) => compileChannel(c, transformMs, dialects, cfg.allowPrivateNetworks));
  const index = buildIndex(channels);
  const byId = new Map(channels.map((c) => [c.id, c]));
  const modelSchemas = new Map(Object.entries(cfg.channels.models).filter(([, m]) => m.body_schema).map(([name, m]) => [name, registry.get(m.body_schema!)]));
  const hash = createHash('sha256').update(JSON.stringify([cfg.routes, cfg.channels])).digest('hex').slice(0, 16);
  return {
    hash,
    schemas: registry,
    server: { ...defaultServerLimits, ...cfg.routes.server },
    routes,
    secretPrefixes: [...new Set(routes.flatMap((r) => (r.clientSecret ? [r.clientSecret.prefix] : [])))],
    channels,
    secrets: [...cfg.resolvedChannels.flatMap((c) => [c.auth?.key, c.auth?.secret]), cfg.channels.billing?.budget_alerts?.webhook_secret].filter((x): x is string => Boolean(x)),
    models: new Map(Object.entries(cfg.channels.models)),
    prices: new Map(Object.entries(cfg.channels.models).map(([name, m]) => [name, compilePrice(name, m)])),
    usage: new Map(Object.entries(cfg.routes.usage ?? {}).map(([op, u]) => [op, compileUsagePaths(u)])),
    groups: new Map(Object.entries(cfg.channels.groups)),
    maxAttempts: dispatch.max_attempts ?? 3,
    tokenCacheMs: dispatch.token_cache_ms ?? 2000,
    promptBytesPerToken: cfg.channels.billing?.prompt_bytes_per_token ?? 4,
    unitsPerUsd: cfg.channels.billing?.units_per_usd ?? 1000,
    timeZone: zoneOf(cfg.channels.billing?.time_zone),
    budgetAlerts: cfg.channels.billing?.budget_alerts,
    adminKeyHash: cfg.adminKey ? createHash('sha256').update(cfg.adminKey.trim()).digest() : undefined,
    breaker: {
      windowMs: dispatch.breaker_window_ms ?? 60_000, minRequests: dispatch.breaker_min_requests ?? 20,
      failureRate: dispatch.breaker_failure_rate ?? 0.5, openMs: dispatch.breaker_open_ms ?? 30_000,
    },
    tasks: { ...defaultTaskSettings, ...cfg.channels.tasks },
    longestTaskAgeS: Math.max({ ...defaultTaskSettings, ...cfg.channels.tasks }.max_age_s, ...channels.flatMap((c) => [...c.operations.values()].map((o) => o.maxAgeS ?? 0))),
    longestFileLifeS: Math.max(0, ...routes.map((r) => r.files?.expiresS.max ?? 0), ...channels.flatMap((c) => [...c.operations.values()].map((o) => o.results?.expiresS ?? 0))),
    callbacks: { allow_private_networks: false, timeout_ms: 5000, max_attempts: 5, ...cfg.channels.callbacks, ...(cfg.allowPrivateNetworks && { allow_private_networks: true }) },
    modelSchemas,
    channel: (id) => byId.get(id),
    candidates: candidatesOf(index),
    servesAnywhere: servedAnywhere(channels),
    groupEndpoints: endpointTypesOf(routes, channels),
  };
}

/** The budgets' time zone, refused at load when the runtime does not know it (a typo would move every reset). */
function zoneOf(zone = 'UTC'): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new Error(`billing.time_zone: unknown time zone "${zone.slice(0, 64)}" (an IANA name such as UTC or Europe/Berlin)`);
  }
  return zone;
}

/**
 * The channels of a group that serve a model on an operation, asked twice per request (access check, dispatch): each
 * answer is computed once per runtime and kept, frozen. Only pairs the index knows are kept, so a client naming
 * models at random adds nothing.
 */
function candidatesOf(index: Map<string, CompiledChannel[]>): (group: string, model: string, operation: string) => readonly CompiledChannel[] {
  const none: readonly CompiledChannel[] = Object.freeze([]);
  const kept = new Map<string, Map<string, readonly CompiledChannel[]>>();
  return (group, model, operation) => {
    const key = `${group}\u0000${model}`;
    const byOp = kept.get(key);
    const hit = byOp?.get(operation);
    if (hit) return hit;
    const all = index.get(key);
    if (!all) return none;
    const found = Object.freeze(all.filter((c) => serves(c.operations.get(operation), model)));
    if (byOp) byOp.set(operation, found);
    else kept.set(key, new Map([[operation, found]]));
    return found;
  };
}

function servedAnywhere(channels: CompiledChannel[]): (model: string, operation: string) => boolean {
  const pairs = new Set<string>();
  for (const c of channels) {
    for (const m of c.models) for (const [name, op] of c.operations) if (serves(op, m)) pairs.add(`${m}\u0000${name}`);
  }
  return (model, operation) => pairs.has(`${model}\u0000${operation}`);
}

function compileTaskRoute(t: NonNullable<Route['task']>, ms: number): CompiledTaskRoute {
  return {
    action: t.action, family: t.family, families: t.families,
    answer: t.answer ? compileTransform(t.answer, ms) : undefined,
    saturatedShape: t.saturated_shape ?? 'A',
    listAnswer: t.list_answer ? compileTransform(t.list_answer, ms) : undefined,
    callback: t.callback,
    refs: t.refs ?? [],
    source: t.source,
    inputFile: t.input_file,
  };
}

const day = 86_400;

function compileFilesRoute(f: NonNullable<Route['files']>): CompiledFilesRoute {
  return {
    purpose: f.purpose,
    lines: new Map(Object.entries(f.lines)),
    operation: f.operation,
    // OpenAI's limits for a batch input file.
    maxLines: f.max_lines ?? 50_000,
    maxBytes: f.max_bytes ?? 200 * 1024 * 1024,
    maxLineBytes: f.max_line_bytes,
    expiresS: { default: 30 * day, min: 3600, max: 30 * day, ...f.expires_s },
  };
}

function resolveLimits(defaults: RouteLimits | undefined, own: RouteLimits | undefined): RouteLimitsResolved {
  const pick = { ...defaults, ...own };
  return {
    maxBodyBytes: pick.max_body_bytes ?? defaultLimits.maxBodyBytes,
    maxJsonDepth: pick.max_json_depth ?? defaultLimits.maxJsonDepth,
    maxResponseBytes: pick.max_response_bytes ?? defaultLimits.maxResponseBytes,
    maxSseEventBytes: pick.max_sse_event_bytes ?? defaultLimits.maxSseEventBytes,
    rateLimit: pick.rate_limit,
  };
}

function compileChannel(c: ResolvedChannel, transformMs: number, dialects: Map<string, CompiledDialect>, allowPrivate: boolean): CompiledChannel {
  // A channel disabled for an unset variable may have no usable base URL; it never sends a request.
  const baseUrl = c.enabled === false && !URL.canParse(c.base_url) ? new URL('http://disabled.invalid') : new URL(c.base_url);
  const operations = new Map<string, CompiledOperation>();
  for (const [name, op] of Object.entries(c.operations ?? {})) {
    const t = (src?: string) => (src ? compileTransform(src, transformMs) : undefined);
    const dialect = op.dialect ? dialects.get(op.dialect) : undefined;
    operations.set(name, {
      path: op.path ?? '', streamPath: op.stream_path, models: op.models && new Set(op.models), request: t(op.request), response: t(op.response), chunk: t(op.chunk),
      pathExpr: t(op.path_expr), encoding: op.encoding ?? 'json',
      statusMap: op.status_map ?? {}, contentPath: op.content?.path, contentResolve: t(op.content?.resolve),
      poll: op.poll && { method: op.poll.method ?? 'GET', path: op.poll.path, request: t(op.poll.request), response: t(op.poll.response)!, batch: op.poll.batch },
      reconcile: op.reconcile && { method: op.reconcile.method ?? 'GET', path: op.reconcile.path, pathExpr: t(op.reconcile.path_expr), response: t(op.reconcile.response)! },
      dialect,
      usage: op.usage ? compileUsagePaths(op.usage) : dialect?.usage,
      insteadOf: op.instead_of,
      cancel: op.cancel && { method: op.cancel.method, path: op.cancel.path, endsTask: op.cancel.ends_task !== false }, delete: op.delete,
      results: op.results && {
        operation: op.results.operation, files: Object.entries(op.results.files), purpose: op.results.purpose ?? 'batch_output',
        statusAt: op.results.status_at.split('.'), answerAt: op.results.answer_at.split('.'), expiresS: op.results.expires_s ?? 30 * day,
      },
      maxAgeS: op.max_age_s,
      audio: op.audio && compileOperationAudio(op.audio),
    });
  }
  // A stand-in answers its dialect's clients for the operation it replaces (looked up per attempt, so kept by that name).
  const standIns = new Map<string, CompiledOperation[]>();
  for (const op of operations.values()) if (op.insteadOf) standIns.set(op.insteadOf, [...standIns.get(op.insteadOf) ?? [], op]);
  const timeouts = { ...defaultTimeouts, ...c.timeouts };
  return {
    id: c.id,
    provider: c.telemetry_provider ?? extendsOf(c)[0],
    enabled: c.enabled !== false,
    baseUrl,
    auth: c.auth ?? { scheme: 'none' },
    headers: c.headers ?? {},
    groups: new Set(c.groups),
    models: new Set(c.models),
    modelMap: c.model_map ?? {},
    priority: c.priority ?? 0,
    weight: c.weight ?? 1,
    timeouts,
    operations,
    standIns,
    // Pooled keep-alive connections per channel: the hot path never pays a new handshake.
    pool: newPool({ maxConnections: c.max_connections, connectMs: timeouts.connect_ms }),
    privateNetwork: c.private_network === true || allowPrivate,
    probe: c.probe && compileProbe(c.probe, transformMs),
  };
}

function buildIndex(channels: CompiledChannel[]): Map<string, CompiledChannel[]> {
  const index = new Map<string, CompiledChannel[]>();
  for (const ch of channels) {
    if (!ch.enabled) continue;
    for (const g of ch.groups) for (const m of ch.models) {
      const key = `${g}\u0000${m}`;
      index.set(key, [...(index.get(key) ?? []), ch]);
    }
  }
  for (const list of index.values()) list.sort((a, b) => b.priority - a.priority);
  return index;
}
