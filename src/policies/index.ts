// Which policy answers a route: proxied routes (a vendor is called and billed), local ones (the gateway answers
// for the caller) and open ones (about the gateway itself).
import type { CompiledRoute } from '../config/runtime.js';
import { serveMetrics } from '../metrics/metrics.js';
import type { LocalPolicy, OpenPolicy, Policy, ProxiedPolicy } from '../pipeline/policy.js';
import { openSession } from '../realtime/open-session.js';
import { mintSecret } from '../realtime/mint-secret.js';
import { adminActions } from '../admin/actions.js';
import { billingActions } from './billing.js';
import { fileActions } from './files.js';
import { chat } from './chat.js';
import { json } from './json.js';
import { passthrough } from './passthrough.js';
import { relay } from './relay.js';
import { taskSubmit } from './task-submit.js';
import { serveModels } from './models.js';
import { serveHealth, serveReady } from './health.js';
import { listTasks, queryTask } from './task-query.js';
import { serveContent } from './task-content.js';
import { relayTask } from './task-relay.js';
import { serveStored } from './stored.js';
import { countTokens } from './count-tokens.js';
import { pageTasks } from './task-page.js';
import { deleteTask } from './task-delete.js';
import { cancelOwnTask } from './task-cancel.js';
import { serveOpenApi } from '../openapi/serve-openapi.js';
import { serveConsole } from '../console/serve-console.js';
import { accountPolicy } from '../console/account-actions.js';

const open: Record<string, OpenPolicy> = {
  health: serveHealth, ready: serveReady, metrics: (ex) => serveMetrics(ex.g, ex.res), openapi: (ex) => serveOpenApi(ex, policyOf), console: serveConsole,
};
const proxied: Record<string, ProxiedPolicy> = { stream: chat, json, passthrough, relay };
const tasks: Record<string, LocalPolicy> = { query: queryTask, list: listTasks, content: serveContent, relay: relayTask, page: pageTasks, delete: deleteTask, cancel: cancelOwnTask };
const local: Record<string, LocalPolicy> = { models: serveModels, stored: serveStored, count_tokens: countTokens, client_secret: mintSecret };

export function policyOf(route: CompiledRoute): Policy {
  if (open[route.policy]) return { kind: 'open', answer: open[route.policy] };
  if (local[route.policy]) return { kind: 'local', answer: local[route.policy] };
  if (route.policy === 'admin') return { kind: 'admin', answer: adminActions[route.action!] };
  if (route.policy === 'realtime') return { kind: 'session', open: openSession };
  if (route.policy === 'billing') return { kind: 'local', answer: billingActions[route.action!] };
  if (route.policy === 'files') return { kind: 'local', answer: fileActions[route.action!] };
  if (route.policy === 'account') return accountPolicy(route.action);
  if (route.policy === 'task') {
    const action = route.task!.action;
    return action === 'submit' ? { kind: 'proxied', policy: taskSubmit } : { kind: 'local', answer: tasks[action] };
  }
  return { kind: 'proxied', policy: proxied[route.policy] };
}
