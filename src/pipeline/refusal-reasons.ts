// The operator's reason for a refusal whose setting is known from the request's route and the config rather than
// from where it was thrown (a body bound, the memory bound, a rate limit): which limit, its value, the key that sets it.
// Refusals that know more set GatewayError.reason themselves; this covers the rest.
import type { RequestContext } from './context.js';
import type { Runtime } from '../config/runtime.js';
import { GatewayError } from '../http/errors.js';
import { TransformError } from '../transform/compile-transform.js';

export function defaultReason(e: GatewayError, ctx: RequestContext, runtime: Runtime): string | undefined {
  const route = ctx.route;
  switch (e.code) {
    case 'request_too_large':
      return route && `body over ${route.limits.maxBodyBytes} bytes: limits.max_body_bytes of route ${route.id} (else routes.yaml defaults.max_body_bytes)`;
    case 'request_timeout':
      return /body bytes/.test(e.message) ? `no body bytes for server.body_idle_timeout_ms (${runtime.server.body_idle_timeout_ms} ms)` : undefined;
    case 'server_busy':
      return /at once/.test(e.message) ? `request bodies held in memory would pass server.max_body_memory_bytes (${runtime.server.max_body_memory_bytes} bytes)` : 'a multipart upload could not be spooled to the temp directory';
    case 'too_many_requests': {
      // Saturated task groups and throttling vendors say so where they are refused; what is left is the rate limit.
      if (!route) return undefined;
      const group = ctx.token?.group;
      return route.limits.rateLimit ? `rate limit of route ${route.id} (its limits.rate_limit)` : `rate limit of group ${group} (groups.${group}.rate_limit)`;
    }
    default:
      return undefined;
  }
}

/**
 * A transform that failed outside a request's mapping (an answer, a task's result): the vendor's answer could not be
 * given in the client's shape, a 502, never a 500. A guardrail trip names its setting.
 */
export function transformFailure(err: TransformError, ctx: RequestContext): GatewayError {
  const task = ctx.route?.policy === 'task';
  const e = task
    ? new GatewayError('bad_response', 'copy_response_body_failed: the vendor\'s answer could not be translated')
    : new GatewayError('bad_response_body', 'Bad upstream response body: it cannot be translated');
  const limit = err.setting ? `; ${err.setting} sets the limit` : '';
  return e.because(`a transform of route ${ctx.route?.id ?? '?'}${ctx.channel ? ` (channel ${ctx.channel})` : ''}: ${err.message}${limit}`);
}
