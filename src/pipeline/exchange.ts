// What flows through the pipeline: one exchange (the request, its answer, its log record), and the typed output of
// each stage, each extending the one before, so a later stage can only read what an earlier one produced.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Gateway } from './gateway.js';
import type { CompiledRoute } from '../config/runtime.js';
import type { TokenRecord } from '../store/token-store.js';
import type { Model } from '../types/generated/channels.js';
import type { PriceInputs } from '../billing/price-inputs.js';
import type { ChosenPrice } from '../billing/price-rules.js';
import type { RequestContext } from './context.js';
import type { Conversation } from '../store/conversations.js';
import type { SecretGrant } from './client-secrets.js';
import type { FileRecord } from '../records/file-record.js';
import type { UserRecord } from '../accounts/user-store.js';
import type { SessionRecord } from '../accounts/sessions.js';

/** `upgrade`: a WebSocket upgrade's socket and the bytes that came after its head (the `res` is written on that socket). */
export interface Exchange { g: Gateway; req: IncomingMessage; res: ServerResponse; ctx: RequestContext; upgrade?: { socket: Duplex; head: Buffer; onClose?: () => void } }

/** matchRoute → the one route (where several share the path, the one its model picks) and the path's parameters. */
export interface Matched { route: CompiledRoute; params: Record<string, string> }

/** authenticateSession → a console user signed in: the user, the session and its id (the cookie's value). */
export interface Member extends Matched { user: UserRecord; session: SessionRecord; sessionId: string }

/** authenticate → the token; `grant` when a client secret of it was presented (what the secret allows). */
export interface Caller extends Matched { token: TokenRecord; grant?: SecretGrant }

/** readRequest → the body as an object (JSON, multipart fields and spooled files, or `{}`), and the bytes as sent. */
export interface Inbound extends Caller { body: Record<string, unknown>; raw: Buffer }

/** The caller's finished task a new one derives from (route `task.source`): its public and vendor ids, its channel. */
export interface TaskSource { id: string; upstreamId: string; channel: string }

/**
 * resolveModel → the model the request names, its price entry, the channel a task reference pins it to, and the
 * task it derives from.
 */
export interface Resolved extends Inbound {
  model: string; price: Model; pin?: string; source?: TaskSource;
  /** A batch: the caller's input file it runs, and the model's batch price (batch-input.ts). */
  batch?: { file: FileRecord; price: ChosenPrice };
}

/** recall → the kept conversation the request continues, if it names one. */
export interface Recalled extends Resolved { previous?: Conversation }

/** price → the checked price inputs, the price they chose, and what may be reserved (the prompt estimate, for token prices). */
export interface Priced extends Recalled { inputs: PriceInputs; chosen: ChosenPrice; amount: number; promptTokens: number }

/**
 * checkUploads → the channels whose vendor body carries every file the request sent (uploads.ts); undefined when it
 * sent none, and any channel may take it.
 */
export interface Checked extends Priced { carriers?: ReadonlySet<string> }
