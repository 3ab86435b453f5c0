// Checks config in layers: YAML syntax → keys of earlier releases → JSON Schema → cross references → JSONata and env
// references.
import { configFile, usesShippedRoutes } from './config-files.js';
import type { ErrorObject } from 'ajv';
import { loadYaml, type YamlFile } from './load-yaml.js';
import { describeOne, type SchemaRegistry } from './schema-registry.js';
import { resolveEnv } from './env-refs.js';
import { ambiguousModelProblems, sharedPathProblem } from './shared-paths.js';
import type { Diagnostic } from './diagnostics.js';
import { dialectSlots, parseSlots, routeTransformsLayer, transformsLayer } from './transform-slots.js';
import { upgradeConfig } from './upgrade.js';
import { priceInputRules } from './price-input-rules.js';
import { priceRules, usagePathRules } from './price-rules-check.js';
import { probeRules } from './probe-rules.js';
import type { ChannelsFile, Channel } from '../types/generated/channels.js';
import { insteadOfRules } from './instead-of-rules.js';
import { actionRules, routeDialectRules, sessionRules } from './route-rules.js';
import type { Route, RoutesFile } from '../types/generated/routes.js';
import { extendsOf, mergeVendors, readVendorFiles } from './vendor-files.js';
import { mergeDialects, readDialectFiles } from './dialect-files.js';

export interface CheckedConfig {
  routes: RoutesFile;
  channels: ChannelsFile;
  /** Channels after `extends` and env resolution; those with unset secrets come back disabled. */
  resolvedChannels: ResolvedChannel[];
  /** Per channel id, the environment variables it references that are unset (which is why it is disabled). */
  unsetEnv: Record<string, string[]>;
  /** The operator's key (SWITCHYARD_ADMIN_KEY); absent: the admin API does not exist. */
  adminKey?: string;
  /**
   * SWITCHYARD_ALLOW_PRIVATE_NETWORKS=1: every channel's result URLs and every callback may reach private addresses
   * (a closed network, e.g. the production config run against the simulator on loopback).
   */
  allowPrivateNetworks: boolean;
  diagnostics: Diagnostic[];
}

/** An admin key short enough to guess would open every token and balance: refused, not warned about. */
export const minAdminKeyLength = 32;

/** A channel with its templates merged in: base URL, groups and models are known (the cross-reference layer checked it). */
export type ResolvedChannel = Channel & Required<Pick<Channel, 'base_url' | 'groups' | 'models'>>;

export function checkConfig(configDir: string, registry: SchemaRegistry, env = process.env): { ok: boolean; config?: CheckedConfig; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  const routesFile = loadYaml(configFile(configDir, 'routes.yaml'), diags);
  const channelsFile = loadYaml(configFile(configDir, 'channels.yaml'), diags);
  if (!routesFile || !channelsFile) return { ok: false, diagnostics: diags };

  const upgraded = upgradeConfig(routesFile, channelsFile, diags);
  schemaLayer(routesFile, 'routes.schema.json', registry, diags);
  schemaLayer(channelsFile, 'channels.schema.json', registry, diags);
  upgraded.dropEchoes(diags);
  if (hasErrors(diags)) return { ok: false, diagnostics: diags };

  const channels = channelsFile.data as ChannelsFile;
  const at = (f: YamlFile, level: Diagnostic['level'], path: string, message: string) =>
    diags.push({ level, file: f.name, path, ...f.locate(path), message });
  transformsLayer(channels, (p, m) => at(channelsFile, 'error', p, m));
  priceRules(channels.models, '/models', (p, m) => at(channelsFile, 'error', p, m));
  const vendorModels = vendorLayer(channels, configDir, registry, diags, at);
  if (hasErrors(diags)) return { ok: false, diagnostics: diags };
  if (usesShippedRoutes(configDir)) keepServed(routesFile, channels, diags);
  const routes = routesFile.data as RoutesFile;
  routeTransformsLayer(routes, (p, m) => at(routesFile, 'error', p, m));
  for (const [op, u] of Object.entries(routes.usage ?? {})) usagePathRules(u, `/usage/${op}`, (p, m) => at(routesFile, 'error', p, m));
  dialectLayer(routes, channels, configDir, registry, diags, at);
  if (hasErrors(diags)) return { ok: false, diagnostics: diags };

  crossRefs(routes, channels, registry, vendorModels, (l, p, m) => at(routesFile, l, p, m), (l, p, m) => at(channelsFile, l, p, m));
  priceInputRules(routes, channels, withTemplate, (l, p, m) => at(routesFile, l, p, m));
  probeRules(channels, (p, m) => at(channelsFile, 'error', p, m));
  const unsetEnv: Record<string, string[]> = {};
  const resolvedChannels = envLayer(channels, env, unsetEnv, (l, p, m) => at(channelsFile, l, p, m));
  const adminKey = env.SWITCHYARD_ADMIN_KEY || undefined;
  if (adminKey !== undefined && adminKey.trim().length < minAdminKeyLength) {
    diags.push({ level: 'error', file: 'environment', path: '/SWITCHYARD_ADMIN_KEY', message: `the admin key must be at least ${minAdminKeyLength} characters (e.g. openssl rand -hex 32)` });
  }
  if (hasErrors(diags)) return { ok: false, diagnostics: diags };
  const allowPrivateNetworks = env.SWITCHYARD_ALLOW_PRIVATE_NETWORKS === '1';
  return { ok: true, config: { routes, channels, resolvedChannels, unsetEnv, adminKey, allowPrivateNetworks, diagnostics: diags }, diagnostics: diags };
}

const hasErrors = (d: Diagnostic[]) => d.some((x) => x.level === 'error');
type Report = (level: Diagnostic['level'], pointer: string, message: string) => void;

function schemaLayer(file: YamlFile, schemaId: string, registry: SchemaRegistry, diags: Diagnostic[]): void {
  const validate = registry.get(schemaId);
  if (validate(file.data)) return;
  for (const e of (validate.errors ?? []) as ErrorObject[]) {
    // An `if` error only says "must match then"; the `then` branch's own errors say what is missing.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const path = e.instancePath;
    const message = describeOne(e, 'document') + condition(e, validate.schema, file.data);
    diags.push({ level: 'error', file: file.name, path, ...file.locate(path), message });
  }
}

/**
 * For an error inside an if/then branch, the condition that made it apply, read from the instance: a field that
 * `then` requires (e.g. `auth.region` with scheme hmac_v4) is reported as "is required when scheme is hmac_v4".
 */
function condition(e: ErrorObject, schema: unknown, data: unknown): string {
  const at = e.schemaPath.lastIndexOf('/then/');
  if (at < 0) return '';
  const ifSchema = resolvePointer(schema, `${e.schemaPath.slice(0, at)}/if`) as { properties?: Record<string, unknown> } | undefined;
  const instance = resolvePointer(data, `#${e.instancePath}`) as Record<string, unknown> | undefined;
  const when = Object.keys(ifSchema?.properties ?? {})
    .filter((k) => instance && typeof instance === 'object' && ['string', 'number', 'boolean'].includes(typeof instance[k]))
    .map((k) => `${k} is ${String(instance![k])}`);
  return when.length ? ` when ${when.join(' and ')}` : '';
}

/** `#/a/b/0` inside a JSON value (schema or instance). */
function resolvePointer(root: unknown, pointer: string): unknown {
  return pointer.replace(/^#\/?/, '').split('/').filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), root);
}

/**
 * The vendor files the channels extend: each checked against its schema and its JSONata parsed (findings point into
 * the vendor file), then merged into `templates` and `models`. Returns the model names that came from vendor files.
 */
function vendorLayer(channels: ChannelsFile, configDir: string, registry: SchemaRegistry, diags: Diagnostic[],
  at: (f: YamlFile, level: Diagnostic['level'], path: string, message: string) => void): Set<string> {
  const vendors = readVendorFiles(channels, configDir, diags);
  for (const v of vendors.values()) {
    schemaLayer(v.file, 'vendor.schema.json', registry, diags);
    if (hasErrors(diags)) continue;
    parseSlots(v.data.channel?.operations, '/channel/operations', (p, m) => at(v.file, 'error', p, m));
    priceRules(v.data.models, '/models', (p, m) => at(v.file, 'error', p, m));
  }
  if (hasErrors(diags)) return new Set();
  return mergeVendors(channels, vendors, (v, p, m) => at(v.file, 'error', p, m));
}

/** The dialect files routes and channels name: each checked against its schema and its JSONata parsed, then merged. */
function dialectLayer(routes: RoutesFile, channels: ChannelsFile, configDir: string, registry: SchemaRegistry, diags: Diagnostic[],
  at: (f: YamlFile, level: Diagnostic['level'], path: string, message: string) => void): void {
  const files = readDialectFiles(routes, channels, configDir, diags);
  for (const f of files.values()) {
    schemaLayer(f, 'dialect.schema.json', registry, diags);
    if (!hasErrors(diags)) parseSlots(f.data, '', (p, m) => at(f, 'error', p, m), dialectSlots);
  }
  if (!hasErrors(diags)) mergeDialects(routes, files);
}

/** Channel with its templates merged in, left to right; the channel's own fields win. */
export function withTemplate(ch: Channel, channels: ChannelsFile): Channel {
  const layers = extendsOf(ch).map((n) => channels.templates?.[n]).filter((t) => t !== undefined);
  return layers.length ? [...layers, ch].reduce(overlay, {}) as Channel : ch;
}

type Layer = Partial<Channel>;

/** One layer over another: maps merge key by key, auth too while its scheme stays the same. */
function overlay(base: Layer, top: Layer): Layer {
  const sameScheme = !top.auth?.scheme || top.auth.scheme === base.auth?.scheme;
  return {
    ...base,
    ...top,
    auth: top.auth && sameScheme ? { ...base.auth, ...top.auth } : top.auth ?? base.auth,
    headers: { ...base.headers, ...top.headers },
    timeouts: { ...base.timeouts, ...top.timeouts },
    operations: { ...base.operations, ...top.operations },
    model_map: { ...base.model_map, ...top.model_map },
  };
}

/** A route that sends to a vendor, when no channel implements its operation. */
function unserved(r: Route, channels: ChannelsFile): boolean {
  const needsChannel = ['stream', 'json', 'passthrough'].includes(r.policy) || r.task?.action === 'submit';
  const op = r.operation ?? r.id;
  return needsChannel && !channels.channels.some((c) => withTemplate(c, channels).operations?.[op]);
}

/**
 * The shipped routes.yaml serves every family the demo has; an operator's config directory without its own
 * routes.yaml keeps those its channels serve and leaves the others out, with one warning instead of an error each.
 */
function keepServed(routesFile: YamlFile, channels: ChannelsFile, diags: Diagnostic[]): void {
  const routes = routesFile.data as RoutesFile;
  const left = routes.routes.filter((r) => unserved(r, channels)).map((r) => r.id);
  if (!left.length) return;
  routes.routes = routes.routes.filter((r) => !unserved(r, channels)) as RoutesFile['routes'];
  diags.push({ level: 'warning', file: routesFile.name, path: '/routes', message: `${left.length} shipped routes are not served: no channel here implements their operation (${left.join(', ')})` });
}

function crossRefs(routes: RoutesFile, channels: ChannelsFile, registry: SchemaRegistry, vendorModels: Set<string>, routeAt: Report, chanAt: Report): void {
  const seen = new Map<string, number[]>();
  routes.routes.forEach((r, i) => {
    const key = `${r.method} ${r.path}`;
    const shared = sharedPathProblem(routes.routes, i, seen.get(key) ?? []);
    if (shared) routeAt('error', `/routes/${i}/path`, shared);
    seen.set(key, [...(seen.get(key) ?? []), i]);
    if (routes.routes.findIndex((x) => x.id === r.id) !== i) routeAt('error', `/routes/${i}/id`, `duplicate route id "${r.id}"`);
    const bad = r.body_schema && registry.problem(r.body_schema);
    if (bad) routeAt('error', `/routes/${i}/body_schema`, bad);
    const op = r.operation ?? r.id;
    if (r.task?.action === 'submit') {
      channels.channels.forEach((c, j) => {
        const spec = withTemplate(c, channels).operations?.[op];
        if (spec && !spec.poll) chanAt('error', `/channels/${j}/operations/${op}`, `task operation "${op}" (route ${r.id}) needs \`poll\``);
      });
    }
    const source = r.task?.source;
    if (source && (r.task?.action !== 'submit' || !r.path.includes(`{${source}}`))) {
      routeAt('error', `/routes/${i}/task/source`, `\`source\` must name a path parameter of a submit route (no {${source}} in ${r.path})`);
    }
    if (unserved(r, channels)) {
      routeAt('error', `/routes/${i}`, `no channel implements operation "${op}"`);
    }
    routeDialectRules(routes, r, `/routes/${i}`, routeAt);
    actionRules(r, `/routes/${i}`, routeAt);
    sessionRules(routes, r, `/routes/${i}`, routeAt);
  });
  const merged = channels.channels.map((c) => withTemplate(c, channels));
  for (const { route, message } of ambiguousModelProblems(routes.routes, merged)) routeAt('error', `/routes/${route}/path`, message);
  channels.channels.forEach((raw, i) => {
    const p = `/channels/${i}`;
    if (channels.channels.findIndex((x) => x.id === raw.id) !== i) chanAt('error', `${p}/id`, `duplicate channel id "${raw.id}"`);
    extendsOf(raw).forEach((n, j) => {
      const where = Array.isArray(raw.extends) ? `${p}/extends/${j}` : `${p}/extends`;
      if (!channels.templates?.[n]) chanAt('error', where, `unknown template "${n}": not in \`templates\`, and no file vendors/${n}.yaml`);
    });
    const ch = withTemplate(raw, channels);
    if (!ch.base_url) chanAt('error', p, 'base_url is required (set it here or in the template)');
    if (!ch.groups?.length) chanAt('error', p, 'groups is required (set it here or in the template)');
    if (!ch.models?.length) chanAt('error', p, 'models is required (set it here or in the template)');
    (ch.groups ?? []).forEach((g, j) => { if (!channels.groups[g]) chanAt('error', `${p}/groups/${j}`, `unknown group "${g}"`); });
    (ch.models ?? []).forEach((m, j) => { if (!channels.models[m]) chanAt('error', `${p}/models/${j}`, `model "${m}" has no entry (price) in models`); });
    for (const k of Object.keys(ch.model_map ?? {})) {
      if (!ch.models?.includes(k)) chanAt('error', `${p}/model_map/${k}`, `"${k}" is not in this channel's models`);
    }
    if (!ch.auth) chanAt('error', p, 'auth is required (set it here or in the template)');
    else authRules(ch.auth, `${p}/auth`, chanAt);
    if (!ch.operations || !Object.keys(ch.operations).length) chanAt('error', p, 'operations is required (set it here or in the template)');
    for (const [name, op] of Object.entries(ch.operations ?? {})) {
      (op.models ?? []).forEach((m, j) => {
        if (!ch.models?.includes(m)) chanAt('error', `${p}/operations/${name}/models/${j}`, `"${m}" is not in this channel's models`);
      });
      if (op.instead_of) insteadOfRules(op, ch.operations ?? {}, `${p}/operations/${name}`, chanAt);
      if (!op.dialect) continue;
      const at = `${p}/operations/${name}/dialect`;
      if (!routes.dialects?.[op.dialect]) chanAt('error', at, `unknown dialect "${op.dialect}": not in routes.yaml \`dialects\`, and no file dialects/${op.dialect}.yaml`);
      // A stand-in only ever carries its own dialect's clients, untouched: it needs no vendor side.
      else if (!routes.dialects[op.dialect].vendor && !op.instead_of) chanAt('error', at, `dialect "${op.dialect}" has no \`vendor\` side`);
      if (op.request || op.response || op.chunk) chanAt('error', at, 'an operation with a dialect takes its transforms from the dialect (remove request, response and chunk)');
    }
  });
  for (const [m, spec] of Object.entries(channels.models)) {
    const served = channels.channels.some((c) => withTemplate(c, channels).models?.includes(m));
    if (!served && !vendorModels.has(m)) chanAt('warning', `/models/${m}`, `no channel serves model "${m}"`);
    const bad = spec.body_schema && registry.problem(spec.body_schema);
    if (bad) chanAt('error', `/models/${m}/body_schema`, bad);
  }
}

function authRules(auth: NonNullable<Channel['auth']>, p: string, at: Report): void {
  if (!auth.scheme) { at('error', p, 'auth.scheme is required (set it here or in the template)'); return; }
  if ((auth.scheme === 'jwt_hs256' || auth.scheme === 'hmac_v4') && !auth.secret) at('error', p, `scheme "${auth.scheme}" needs secret`);
  if (auth.scheme === 'hmac_v4' && (!auth.region || !auth.service)) at('error', p, 'scheme "hmac_v4" needs region and service');
  if (auth.scheme !== 'none' && !auth.key) at('error', p, `scheme "${auth.scheme}" needs key`);
  if (auth.scheme === 'header' && !auth.header) at('error', p, 'scheme "header" needs header');
}

function envLayer(channels: ChannelsFile, env: NodeJS.ProcessEnv, unset: Record<string, string[]>, at: Report): ResolvedChannel[] {
  return channels.channels.map((raw, i) => {
    const { value, missing } = resolveEnv(withTemplate(raw, channels) as ResolvedChannel, env, `/channels/${i}`);
    if (!missing.some((m) => m.pointer.endsWith('/base_url')) && !validUrl(value.base_url)) {
      at('error', `/channels/${i}/base_url`, `"${value.base_url}" is not an http:// or https:// URL`);
    }
    if (!missing.length) return value;
    unset[raw.id] = [...new Set(missing.map((m) => m.name))];
    at('warning', missing[0].pointer, `environment variable ${unset[raw.id].join(', ')} is not set: channel "${raw.id}" is disabled`);
    return { ...value, enabled: false };
  });
}

function validUrl(s: string): boolean {
  try { return /^https?:$/.test(new URL(s).protocol); } catch { return false; }
}
