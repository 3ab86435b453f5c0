// The Realtime WebSocket on the simulator's own port: `GET /v1/realtime?model=…` upgraded by `ws` (noServer). Like
// api.openai.com, the upgrade always completes and a refusal comes in band: an `error` event, then a close frame whose
// reason is `<type>.<code>` (3000 for a bad key, 4000 for a missing or unknown model or the beta header). Keys come from
// `Authorization: Bearer` or, for browsers, the subprotocols `realtime` + `openai-insecure-api-key.KEY`; the answer
// selects `realtime`. Scripted faults apply to the handshake itself, as an HTTP answer instead of the upgrade.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Control, Fault } from '../control.js';
import { bearerKey, errorBody, maskKey, statusError } from '../http.js';
import { type Json, defaultSession } from './defaults.js';
import { errorEvent } from './events.js';
import { RealtimeSession } from './session.js';
import { type RealtimeLimits, type RealtimeStore, realtimeStoreOf } from './store.js';

export const REALTIME_PATH = '/v1/realtime';
const KEY_PROTOCOL = 'openai-insecure-api-key.';

interface Credential {
  key: string;
  via: 'bearer' | 'subprotocol';
}

/** The key a client presented: the Bearer header, else the browser's subprotocol form. */
export function realtimeCredential(req: IncomingMessage): Credential | undefined {
  const bearer = bearerKey(req);
  if (bearer) return { key: bearer, via: 'bearer' };
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const key = protocols.find((p) => p.startsWith(KEY_PROTOCOL))?.slice(KEY_PROTOCOL.length);
  return key ? { key, via: 'subprotocol' } : undefined;
}

export interface RealtimeServer {
  closeAll(): Promise<void>;
}

export function attachRealtime(server: Server, control: Control, keys: ReadonlySet<string>, limits: Partial<RealtimeLimits> = {}): RealtimeServer {
  const store = realtimeStoreOf(control);
  Object.assign(store.limits, limits);
  const wss = new WebSocketServer({ noServer: true, maxPayload: store.limits.maxMessageBytes, handleProtocols: (p) => (p.has('realtime') ? 'realtime' : false) });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    if (path !== REALTIME_PATH) return refuse(socket, 404, errorBody(`Invalid URL (GET ${path})`, 'invalid_request_error', null, null));
    control.record(req, path, '');
    const credential = realtimeCredential(req);
    const fault = control.takeFault(credential?.key, path);
    if (fault) return void faulted(socket, fault);
    wss.handleUpgrade(req, socket, head, (ws) => open(ws, req, credential, store, keys));
  });
  return {
    closeAll: async () => {
      await Promise.all([...store.live].map((s) => s.shutdown(1001, 'Server shutting down')));
      wss.close();
    },
  };
}

function refuse(socket: Duplex, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const head = Object.entries({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), connection: 'close', ...headers })
    .map(([k, v]) => `${k}: ${v}`).join('\r\n');
  socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Error'}\r\n${head}\r\n\r\n${text}`);
}

async function faulted(socket: Duplex, fault: Fault): Promise<void> {
  if (fault.delay_ms) await new Promise((r) => setTimeout(r, fault.delay_ms));
  if (fault.status === 0) return void socket.destroy();
  const canned = statusError(fault.status);
  refuse(socket, fault.status, fault.body ?? canned.body, { ...canned.headers, ...fault.headers });
}

/** An in-band refusal: the error event, then the close frame with OpenAI's `type.code` reason. */
function reject(ws: WebSocket, closeCode: number, code: string, message: string): void {
  ws.send(JSON.stringify(errorEvent({ code, message })));
  ws.close(closeCode, `invalid_request_error.${code}`);
}

function open(ws: WebSocket, req: IncomingMessage, credential: Credential | undefined, store: RealtimeStore, keys: ReadonlySet<string>): void {
  ws.on('error', () => {});
  if (req.headers['openai-beta']) {
    return reject(ws, 4000, 'beta_api_shape_disabled', 'The beta API shape is no longer supported. Remove the OpenAI-Beta header and use the GA event shapes.');
  }
  const secret = credential ? store.secrets.get(credential.key) : undefined;
  const live = secret && secret.expiresAt > Date.now() ? secret : undefined;
  if (!credential || (!keys.has(credential.key) && !live)) {
    const message = credential
      ? `Incorrect API key provided: ${maskKey(credential.key)}. You can find your API key at https://platform.openai.com/account/api-keys.`
      : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
    return reject(ws, 3000, 'invalid_api_key', message);
  }
  const model = String(live?.session.model ?? new URL(req.url ?? '/', 'http://sim').searchParams.get('model') ?? '');
  if (!model) return reject(ws, 4000, 'missing_model', 'You must provide a model parameter, for example wss://api.openai.com/v1/realtime?model=gpt-realtime-1.5');
  if (model.startsWith('missing-')) {
    return reject(ws, 4000, 'invalid_model', `Model "${model}" is not supported in realtime mode. Supported models are listed at https://platform.openai.com/docs/models.`);
  }
  const expiresAt = Math.floor((Date.now() + store.limits.maxSessionMs) / 1000);
  const base = defaultSession(model, expiresAt);
  const session: Json = live ? { ...live.session, id: base.id, expires_at: expiresAt } : base;
  new RealtimeSession({ ws, store, session, key: credential.key, keyKind: live ? 'client_secret' : 'api_key' }).start();
}
