// What a policy supplies to the pipeline: for a proxied route, how its body is read, how each attempt's request is
// built and how the answer is given (the respond step); for a local route (models, task queries), the answer alone.
import type { BodyKind } from './read-request.js';
import type { Build, RetryRule, Sent } from './dispatch.js';
import type { Caller, Exchange, Matched, Member, Priced } from './exchange.js';
import type { Bill, Hold } from './reservation.js';
import type { CompiledRoute } from '../config/runtime.js';

export interface ProxiedPolicy {
  body: BodyKind;
  /** `durable`: a task (an in-flight slot, a reservation that outlives the answer). */
  scope: 'request' | 'durable';
  retry: RetryRule;
  /** Whether an upstream error status is turned into the gateway's error (false: the policy relays it as it is). */
  relayErrors: boolean;
  build: Build;
  /**
   * Whether `build` maps the body with buildCall (src/transform/build-call.ts), whose files (uploads) a vendor body
   * must carry: the pipeline then checks every channel for them before reserving (src/pipeline/uploads.ts).
   */
  mapsFiles?: boolean;
  respond(ex: Exchange, p: Priced, sent: Sent, hold: Hold): Promise<Bill>;
}

/** Answers from the gateway itself (the caller's models, its tasks). */
export type LocalPolicy = (ex: Exchange, c: Caller) => Promise<void>;

/** The operator's API: the admin key checked, no token. */
export type AdminPolicy = (ex: Exchange, m: Matched) => Promise<void>;

/** The console's users on their own things: a session checked (and its CSRF token, past GET), no token. */
export type MemberPolicy = (ex: Exchange, m: Member) => Promise<void>;

/** Answers about the gateway (health, readiness, metrics): no caller needed. */
export type OpenPolicy = (ex: Exchange, m: Matched) => Promise<void> | void;

/** A live session over a WebSocket upgrade: runs until the session ends. */
export type SessionPolicy = (ex: Exchange, c: Caller) => Promise<void>;

export type Policy = { kind: 'proxied'; policy: ProxiedPolicy } | { kind: 'local'; answer: LocalPolicy } | { kind: 'open'; answer: OpenPolicy }
  | { kind: 'admin'; answer: AdminPolicy } | { kind: 'member'; answer: MemberPolicy } | { kind: 'session'; open: SessionPolicy };

/**
 * Which policy answers a route: the registry of src/policies/index.ts, handed to the pipeline and the OpenAPI document
 * by the process (a registry of the layers above is passed down, never imported up).
 */
export type PolicyOf = (route: CompiledRoute) => Policy;
