// Minimal Ark Assets OpenAPI (V4-signed POST /?Action=…&Version=2024-01-01, service ark): asset groups and assets that turn Active on the second GetAsset.
import { parseDirectives } from '../directives.js';
import { type Ctx, sendJson } from '../http.js';
import { mediaStoreOf } from '../media/store.js';
import { ARK_SCOPE, verifyVolcV4 } from '../media/volc-sign.js';
import { type Json, isObject, parseJson, query } from './common.js';
import { rawBodyOf } from './raw-body.js';
import { type ArkAsset, arkId, storeOf, uuid } from './task-store.js';

const VERSION = '2024-01-01';
const ASSET_TYPES = ['Image', 'Video', 'Audio'];

function meta(action: string): Json {
  return { RequestId: uuid().replace(/-/g, ''), Action: action, Version: VERSION, Service: ARK_SCOPE.service, Region: ARK_SCOPE.region };
}

/** Volcengine OpenAPI errors live in ResponseMetadata.Error (with the numeric CodeN where Volcengine has one). */
function fail(ctx: Ctx, action: string, status: number, code: string, message: string, codeN?: number): void {
  const error = codeN === undefined ? { Code: code, Message: message } : { CodeN: codeN, Code: code, Message: message };
  sendJson(ctx.res, status, { ResponseMetadata: { ...meta(action), Error: error } });
}

export function arkAssetsError(status: number): { body: unknown } {
  const code = status === 429 ? 'FlowLimitExceeded' : status === 401 ? 'InvalidAuthorization' : status >= 500 ? 'InternalError' : 'InvalidParameter';
  return { body: { ResponseMetadata: { ...meta(''), Error: { Code: code, Message: `Simulated error (HTTP ${status}).` } } } };
}

function ok(ctx: Ctx, action: string, result: Json): void {
  sendJson(ctx.res, 200, { ResponseMetadata: meta(action), Result: result });
}

/** Processing until the second GetAsset; a `[sim fail=1]` in Name or URL makes it Failed instead of Active. */
export function assetStatus(a: ArkAsset): 'Processing' | 'Active' | 'Failed' {
  if (a.gets < 2) return 'Processing';
  return a.fail ? 'Failed' : 'Active';
}

function view(a: ArkAsset): Json {
  const { gets: _gets, fail: _fail, ...rest } = a;
  return { ...rest, Status: assetStatus(a) };
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function need(ctx: Ctx, action: string, body: Json, field: string): boolean {
  if (typeof body[field] === 'string' && body[field] !== '') return true;
  fail(ctx, action, 400, 'MissingParameter', `The required parameter ${field} is missing.`);
  return false;
}

type Handler = (ctx: Ctx, body: Json) => void;

const ACTIONS: Record<string, Handler> = {
  CreateAssetGroup(ctx, b) {
    if (!need(ctx, 'CreateAssetGroup', b, 'Name')) return;
    const Id = arkId('group');
    const group = { Id, Name: b.Name as string, Description: String(b.Description ?? ''), GroupType: String(b.GroupType ?? 'AIGC'), ProjectName: String(b.ProjectName ?? 'default'), CreateTime: now() };
    storeOf(ctx.control).groups.set(Id, group);
    ok(ctx, 'CreateAssetGroup', { Id });
  },
  CreateAsset(ctx, b) {
    const action = 'CreateAsset';
    if (!need(ctx, action, b, 'GroupId') || !need(ctx, action, b, 'URL') || !need(ctx, action, b, 'AssetType')) return;
    if (!ASSET_TYPES.includes(b.AssetType as string)) return fail(ctx, action, 400, 'InvalidParameter', 'The parameter AssetType is invalid.');
    const store = storeOf(ctx.control);
    if (!store.groups.has(b.GroupId as string)) return fail(ctx, action, 404, 'ResourceNotFound', `The asset group ${String(b.GroupId)} does not exist.`);
    const Id = arkId('asset');
    const text = `${String(b.Name ?? '')} ${String(b.URL)}`;
    const d = parseDirectives(text);
    store.assets.set(Id, {
      Id, Name: String(b.Name ?? ''), URL: b.URL as string, AssetType: b.AssetType as string, GroupId: b.GroupId as string,
      ProjectName: String(b.ProjectName ?? 'default'), gets: 0, fail: d.fail === '1' || d.fail === 'true', CreateTime: now(), UpdateTime: now(),
    });
    ok(ctx, action, { Id });
  },
  GetAsset(ctx, b) {
    if (!need(ctx, 'GetAsset', b, 'Id')) return;
    const asset = storeOf(ctx.control).assets.get(b.Id as string);
    if (!asset) return fail(ctx, 'GetAsset', 404, 'ResourceNotFound', `The asset ${String(b.Id)} does not exist.`);
    asset.gets++;
    if (asset.gets === 2) asset.UpdateTime = now();
    ok(ctx, 'GetAsset', view(asset));
  },
  ListAssets(ctx, b) {
    const page = Math.max(1, Number(b.PageNumber) || 1);
    const size = Math.min(100, Math.max(1, Number(b.PageSize) || 10));
    const f = isObject(b.Filter) ? b.Filter : {};
    const groups = Array.isArray(f.GroupIds) ? (f.GroupIds as string[]) : undefined;
    const store = storeOf(ctx.control);
    const items = [...store.assets.values()].filter((a) =>
      (typeof f.Name !== 'string' || a.Name.includes(f.Name))
      && (!groups || groups.includes(a.GroupId))
      && (typeof f.GroupType !== 'string' || store.groups.get(a.GroupId)?.GroupType === f.GroupType));
    // Listing never advances Status: only GetAsset does, so tests control the transition.
    ok(ctx, 'ListAssets', { PageNumber: page, PageSize: size, TotalCount: items.length, Items: items.slice((page - 1) * size, page * size).map(view) });
  },
};

/**
 * Ark's OpenAPI on open.volcengineapi.com: every request is AK/SK V4-signed with service `ark`, region `cn-beijing`
 * (the AK/SK pairs of `VOLC_KEYS`). The signature is checked first and logged like the visual API's; a Bearer key, or a
 * signature for another scope, is refused with 401 as Volcengine's gateway does.
 */
export async function arkAssets(ctx: Ctx): Promise<void> {
  const action = query(ctx, 'Action') ?? '';
  const verdict = verifyVolcV4(ctx.req.method ?? 'POST', ctx.req.url ?? '/', ctx.req.headers, rawBodyOf(ctx.req, ctx.raw), undefined, undefined, ARK_SCOPE);
  mediaStoreOf(ctx.control).signatures.push({
    at: Date.now(), service: ARK_SCOPE.service, action, ak: verdict.ak, ok: verdict.ok, code: verdict.code, reason: verdict.reason,
    signedHeaders: verdict.signedHeaders, canonicalRequest: verdict.canonicalRequest,
  });
  if (!verdict.ok) return fail(ctx, action, 401, verdict.code ?? 'InvalidAuthorization', verdict.message ?? '', verdict.codeN);
  const handler = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
  if (!handler || query(ctx, 'Version') !== VERSION) {
    return fail(ctx, action, 404, 'InvalidActionOrVersion', `Could not find operation ${action} for version ${query(ctx, 'Version') ?? ''}`);
  }
  const body = ctx.raw.trim() === '' ? {} : parseJson(ctx.raw);
  if (!body) return fail(ctx, action, 400, 'InvalidParameter', 'The request body is not valid JSON.');
  handler(ctx, body);
}
