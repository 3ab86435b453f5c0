// The errors a route can answer: the stages its requests go through (src/pipeline/index.ts, docs/contributors/
// architecture.md) and the catalogued codes each stage refuses with, so the statuses come from the catalog itself.
import type { CompiledRoute } from '../config/runtime.js';
import { catalog, type ErrorCode } from '../http/errors.js';
import type { PolicyOf } from '../pipeline/policy.js';

/** A catalogued refusal; `status` where the stage answers the code with another status than the catalog's. */
export interface Refusal { code: ErrorCode; status: number }

const stages = {
  connection: ['request_timeout', 'server_busy', 'internal_error'],             // src/server.ts: any request
  authenticate: ['invalid_api_key'],
  authenticateAdmin: ['invalid_api_key', 'admin_key_required'],
  rateLimit: ['too_many_requests'],
  readJson: ['invalid_request', 'request_timeout', 'request_too_large', 'unsupported_media_type', 'server_busy'],
  readMultipart: ['invalid_request', 'request_timeout', 'request_too_large', 'server_busy'], // multipart is not a 415
  readRaw: ['request_timeout', 'request_too_large', 'server_busy'],
  resolveModel: ['invalid_request', 'model_not_allowed', 'model_not_found'],
  taskRefs: ['task_not_found', 'invalid_request'],                               // a `refs` field naming a task
  taskSource: ['task_not_found', 'task_not_completed', 'invalid_request'],       // a remix's source
  batchInput: ['file_not_found', 'invalid_request'],                             // a batch's input file, its lines rechecked
  recall: ['invalid_request'],
  price: ['invalid_request'],
  reserve: ['insufficient_user_quota'],
  reserveTask: ['insufficient_user_quota', 'too_many_requests'],                 // a task slot in the group
  dispatch: ['invalid_request', 'too_many_requests', 'upstream_error', 'upstream_timeout', 'no_available_channel'],
  respond: ['bad_response_body'],
  respondTask: ['task_failed', 'bad_response', 'upstream_error'],
  session: ['upgrade_required', 'too_many_requests'],                            // src/realtime/open-session.ts
  authenticateSession: ['session_required'],                                     // src/pipeline/authenticate-session.ts
  csrf: ['csrf_refused'],
  signedOut: ['csrf_refused', 'unsupported_media_type', 'too_many_requests'],    // src/console/sign-in-api.ts
} satisfies Record<string, ErrorCode[]>;

// What each local answer refuses once the caller is known (src/policies/, src/admin/).
const taskActions: Record<string, ErrorCode[]> = {
  query: ['task_not_found'],
  list: stages.readJson,
  content: ['task_not_found', 'task_not_completed', 'bad_response', 'upstream_timeout'],
  relay: ['task_not_found', 'upstream_error', 'bad_response'],
  page: ['invalid_request'],
  delete: ['task_not_found', 'invalid_request', 'task_busy', 'upstream_error'],
  cancel: [...stages.readRaw, 'task_not_found', 'invalid_request', 'task_busy', 'upstream_error'],
};
// The files policy (src/files/): an upload is read as multipart, its lines checked, then stored at a vendor.
const fileActions: Record<string, ErrorCode[]> = {
  upload: [...stages.readMultipart, 'no_available_channel', 'upstream_error', 'bad_response'],
  get: ['file_not_found'],
  list: ['invalid_request'],
  content: ['file_not_found', 'upstream_error', 'bad_response'],
  delete: ['file_not_found', 'upstream_error'],
};
const adminActions: Record<string, ErrorCode[]> = {
  token_create: ['user_not_found'],
  token_list: ['invalid_request'], token_get: ['token_not_found'], token_update: ['token_not_found'], token_topup: ['token_not_found'],
  user_create: ['conflict'], user_list: ['invalid_request', 'team_not_found'], user_get: ['user_not_found'], user_update: ['user_not_found', 'conflict'],
  user_topup: ['user_not_found'], user_tokens: ['user_not_found', 'invalid_request'], user_usage: ['user_not_found', 'invalid_request'],
  team_create: ['conflict'], team_list: ['invalid_request'], team_get: ['team_not_found'], team_update: ['team_not_found', 'conflict'],
  team_member_add: ['team_not_found', 'user_not_found', 'conflict'], team_member_remove: ['team_not_found', 'user_not_found', 'conflict'],
  team_usage: ['team_not_found', 'invalid_request'],
  token_revoke: ['token_not_found'], usage: ['invalid_request'], tasks: ['invalid_request', 'token_not_found'], reload: ['invalid_request'],
  user_invite: ['user_not_found', 'conflict'],
};
const billingActions: Record<string, ErrorCode[]> = { usage: ['invalid_request'] };
// The console's users (src/console/): their own things; another user's ids are the not-found codes.
const accountActions: Record<string, ErrorCode[]> = {
  sign_in: ['invalid_credentials'], invite_accept: ['invite_not_found', 'invite_used', 'invite_expired'],
  my_token_create: ['conflict'], my_token_revoke: ['token_not_found'], my_token_rotate: ['token_not_found', 'conflict'],
  my_usage: ['invalid_request', 'token_not_found', 'user_not_found'],
  my_requests: ['invalid_request', 'token_not_found', 'user_not_found', 'not_found', 'request_log_unavailable'],
  my_request: ['not_found', 'request_log_unavailable'],
};

/** Every refusal of the route, one per code and status, in status order. */
export function refusalsOf(route: CompiledRoute, policyOf: PolicyOf): Refusal[] {
  const codes = stagesOf(route, policyOf).flat();
  const out = new Map<string, Refusal>();
  for (const code of codes) out.set(`${code}:${catalog[code].status}`, { code, status: catalog[code].status });
  // A Range the result does not have is answered 416 (src/policies/task-content.ts).
  if (route.task?.action === 'content' || (route.policy === 'files' && route.action === 'content')) out.set('invalid_request:416', { code: 'invalid_request', status: 416 });
  return [...out.values()].sort((a, b) => a.status - b.status);
}

/** Whether a vendor's own error status reaches the client (its 4xx relayed; on passthrough, every answer as it came). */
export function relaysVendorErrors(route: CompiledRoute, policyOf: PolicyOf): boolean {
  const p = policyOf(route);
  return p.kind === 'proxied' && (p.policy.relayErrors || p.policy.body === 'raw');
}

function stagesOf(route: CompiledRoute, policyOf: PolicyOf): ErrorCode[][] {
  const p = policyOf(route);
  if (route.policy === 'account') return [stages.connection, ...accountStages(route)];
  if (p.kind === 'open' && !route.auth) return [stages.connection];
  if (p.kind === 'admin') {
    const body = route.validate ? stages.readJson : route.method !== 'GET' ? stages.readRaw : [];
    return [stages.connection, stages.authenticateAdmin, body, adminActions[route.action ?? ''] ?? []];
  }
  const caller = [stages.connection, stages.authenticate, stages.rateLimit];
  if (p.kind === 'open') return caller;
  if (p.kind === 'local') return [...caller, ...localStages(route)];
  if (p.kind === 'session') return [...caller, stages.session, stages.resolveModel, stages.reserve, stages.dispatch];
  if (p.kind === 'member') return [];
  const task = route.task;
  return [
    ...caller,
    p.policy.body === 'raw' ? stages.readRaw : route.multipart ? stages.readMultipart : stages.readJson,
    stages.resolveModel,
    task?.refs.length ? stages.taskRefs : [],
    task?.source ? stages.taskSource : [],
    task?.inputFile ? stages.batchInput : [],
    route.store?.continues ? stages.recall : [],
    stages.price,
    p.policy.scope === 'durable' ? stages.reserveTask : stages.reserve,
    stages.dispatch,
    task ? stages.respondTask : p.policy.body === 'raw' ? [] : stages.respond,
  ];
}

/** Signed out: the origin, JSON and the attempt bounds; signed in: the session, its CSRF token past GET, the body. */
function accountStages(route: CompiledRoute): ErrorCode[][] {
  const action = accountActions[route.action ?? ''] ?? [];
  if (route.auth !== 'session') return [stages.signedOut, stages.readJson, action];
  const body = route.validate ? stages.readJson : route.method !== 'GET' ? stages.readRaw : [];
  return [stages.authenticateSession, route.method !== 'GET' ? stages.csrf : [], body, action];
}

function localStages(route: CompiledRoute): ErrorCode[][] {
  if (route.task) return [taskActions[route.task.action] ?? []];
  if (route.policy === 'models') return [route.path.includes('{id}') ? ['model_not_found'] : []];
  if (route.policy === 'stored') return [['not_found']];
  if (route.policy === 'billing') return [billingActions[route.action ?? ''] ?? []];
  if (route.policy === 'files') return [fileActions[route.action ?? ''] ?? []];
  if (route.policy === 'count_tokens') return [stages.readJson, stages.resolveModel, route.store?.continues ? stages.recall : []];
  if (route.policy === 'client_secret') return [stages.readJson, stages.resolveModel];
  return [];
}
