// Simulator HTTP server: the /_sim/ control plane plus a tiny router over the vendor route list.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { audioRoutes } from './audio/index.js';
import { anthropicFaultKey, anthropicNotFound, anthropicRoutes, isAnthropicPath, prepareAnthropic, withAnthropicFaultBody } from './anthropic.js';
import { Control, applyFault, serveControl } from './control.js';
import { type Ctx, type Route, echoInto, errorBody, presentedCredential, requestId, sendJson, upstreamKey } from './http.js';
import { mediaFaultKey, mediaRoutes, serveMediaControl, withMediaFaultBody } from './media/index.js';
import { openaiChat } from './openai-chat.js';
import { openaiResponses } from './openai-responses.js';
import { openaiEmbeddings } from './openai-embeddings.js';
import { openaiModerations } from './openai-moderations.js';
import { rerankRoutes } from './rerank.js';
import { modelRoutes } from './models.js';
import { serveVideoControl, videoFaultKey, videoRoutes, withVendorFaultBody } from './video/index.js';
import { readRawBody } from './video/raw-body.js';
import { type RealtimeLimits, RealtimeControl, attachRealtime, realtimeClientSecrets, serveVoiceControl } from './realtime/index.js';

export type { Control, Fault, LoggedRequest, SimStats } from './control.js';
export type { VideoAssetInfo, VideoTaskInfo } from './video/control.js';
export { VideoControl, KLING_KEYS, expectedFileBytes, signKlingJwt } from './video/index.js';
export type { CallbackRecord, ImageRequestRecord, MediaTaskInfo, SignatureRecord, SunoFetchStats } from './media/index.js';
export { ARK_SCOPE, MediaControl, VISUAL_SCOPE, VOLC_KEYS, pngBytes, pngDimensions, signVolcV4, verifyVolcV4 } from './media/index.js';
export type { VolcScope } from './media/index.js';
export { ANTHROPIC_VERSIONS } from './anthropic.js';
export { embeddingVector, float32Base64 } from './openai-embeddings.js';
export { COHERE_CHUNK_TOKENS, COHERE_DOCS_PER_SEARCH, cohereSearchUnits, jinaTokens, ranked, relevance } from './rerank.js';
export { AUDIO_CONTENT_TYPES, SPEECH_FORMATS, audioBytes, mp3Bytes, pcmBytes, probe, wavBytes } from './audio/index.js';
export type { AudioRequestRecord, Probe, SpeechFormat } from './audio/index.js';
export { ASSISTANT_AUDIO_TOKENS_PER_SECOND, RealtimeControl, USER_AUDIO_TOKENS_PER_SECOND, realtimeCredential } from './realtime/index.js';
export type { RealtimeLimits, RealtimeSessionRecord, UsageTotals } from './realtime/index.js';

// New vendors (video, image, music) add a file and one entry here. Media first: its `POST /` route fronts both
// Volcengine OpenAPI vendors (the visual API and Ark Assets), chosen by the signature's credential scope.
const routes: Route[] = [openaiChat, openaiResponses, openaiEmbeddings, openaiModerations, ...rerankRoutes, ...audioRoutes, realtimeClientSecrets, ...modelRoutes, ...anthropicRoutes, ...mediaRoutes, ...videoRoutes];

export interface SimulatorOptions {
  port?: number;
  host?: string;
  /** Accepted bearer keys; default ['sim-key']. */
  keys?: string[];
  /** Realtime limits: `maxSessionMs` (OpenAI: 60 minutes; tests use a few hundred ms) and `maxMessageBytes` (15 MiB). */
  realtime?: Partial<RealtimeLimits>;
}

export interface Simulator {
  url: string;
  port: number;
  close(): Promise<void>;
  /**
   * A Control with the video extensions (videoTasks(), …), the media ones (mediaTasks(), callbacks(), signatures(), …) and
   * the voice ones (realtimeSessions(), openRealtimeSessions(), audioRequests(), …).
   */
  control: RealtimeControl;
}

/** Port 0 (the default) picks a free port, so parallel test files never collide. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const control = new RealtimeControl();
  const keys = new Set(opts.keys ?? ['sim-key']);
  const server = createServer((req, res) => {
    dispatch(req, res, control, keys).catch((err: unknown) => fail(res, err));
  });
  // The Realtime WebSocket shares the port: upgrades of /v1/realtime are answered there, and close() ends its sockets.
  const realtime = attachRealtime(server, control, keys, opts.realtime);
  const host = opts.host ?? '127.0.0.1';
  await listen(server, opts.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { url, port, control, close: async () => { await realtime.closeAll(); await close(server); } };
}

async function dispatch(req: IncomingMessage, res: ServerResponse, control: Control, keys: ReadonlySet<string>): Promise<void> {
  res.setHeader('x-request-id', requestId());
  res.on('error', () => {}); // a client vanishing mid-write is expected, not a crash
  const path = new URL(req.url ?? '/', 'http://sim').pathname;
  // Raw bytes are kept aside for multipart uploads (Sora); vendors get the utf8 text as before.
  const bytes = await readRawBody(req);
  const raw = bytes.toString('utf8');
  if (path.startsWith('/_sim/')) {
    if (serveVideoControl(req, res, path, control) || serveMediaControl(req, res, path, control) || serveVoiceControl(req, res, path, control)) return;
    return serveControl(req, res, path, raw, control);
  }
  control.record(req, path, raw, bytes);
  prepareAnthropic(res, path); // Anthropic's own `request-id` header, set before faults so they carry it too
  const credential = control.echoCredential() ? presentedCredential(req) : undefined;
  if (credential) echoInto(res, credential); // decided once here, applied by sendJson/applyFault for every vendor
  const key = anthropicFaultKey(req, path) ?? videoFaultKey(req, path) ?? mediaFaultKey(req, path) ?? upstreamKey(req);
  const ctx: Ctx = { req, res, path, raw, key, keys, control, signal: abortOnClose(res) };
  const fault = control.takeFault(ctx.key, path);
  if (fault) return applyFault(ctx, withAnthropicFaultBody(res, path, withVendorFaultBody(path, withMediaFaultBody(req, path, fault))));
  const route = routes.find((r) => r.method === req.method && (typeof r.path === 'string' ? r.path === path : r.path.test(path)));
  if (route) return route.handle(ctx);
  if (isAnthropicPath(path)) return anthropicNotFound(res);
  sendJson(res, 404, errorBody(`Invalid URL (${req.method} ${path})`, 'invalid_request_error', null, null));
}

/** Lets handlers stop timers and writes the moment the client goes away. */
function abortOnClose(res: ServerResponse): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  return ac.signal;
}

function fail(res: ServerResponse, err: unknown): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  sendJson(res, 500, errorBody(`Simulator bug: ${(err as Error)?.message ?? err}`, 'server_error', null, null));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Destroys live sockets too: a keep-alive or half-read stream must never hang a test run. */
function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve()); // resolves even when already closed, so double close is harmless
    server.closeAllConnections();
  });
}
