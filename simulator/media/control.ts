// Test-facing view of media state: VideoControl plus mediaTasks()/callbacks()/signatures()/imageRequests()/sunoFetches(), also under /_sim/media/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Control } from '../control.js';
import { errorBody, sendJson } from '../http.js';
import { VideoControl } from '../video/control.js';
import { mediaFileBytes } from './files.js';
import { type CallbackRecord, type ImageRequestRecord, type SignatureRecord, mediaStoreOf, statusOf } from './store.js';

export interface MediaTaskInfo {
  vendor: string;
  id: string;
  kind: string;
  model: string;
  prompt: string;
  /** The vendor's own word (SUCCESS, IN_PROGRESS, generating, …) as the next query would report it. */
  status: string;
  polls: number;
  ticks: number;
  pollsBeforeDone: number;
  fail: boolean;
  failReason: string | null;
  notifyHook: string | null;
  /** Midjourney: the speed prefix the submit came on (`FAST`, `RELAX`, `TURBO`), null without one. */
  speed: string | null;
  files: string[];
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

export interface SunoFetchStats {
  /** `POST /suno/fetch` calls (batch polling) and the ids each asked for. */
  batch: number;
  single: number;
  batches: string[][];
}

export class MediaControl extends VideoControl {
  /** Midjourney, Suno and Jimeng tasks, oldest first; reading does not count as a poll. */
  mediaTasks(): MediaTaskInfo[] {
    return [...mediaStoreOf(this).tasks.values()].map((t) => ({
      vendor: t.vendor, id: t.id, kind: t.kind, model: t.model, prompt: t.prompt, status: statusOf(t), polls: t.polls, ticks: t.ticks,
      pollsBeforeDone: t.pollsBeforeDone, fail: t.fail, failReason: t.failReason ?? null, notifyHook: t.notifyHook ?? null,
      speed: typeof t.extra.speed === 'string' ? t.extra.speed : null, files: [...t.files],
      createdAt: t.createdAt, startedAt: t.startedAt ?? null, finishedAt: t.finishedAt ?? null,
    }));
  }

  /** notifyHook deliveries in send order; `result` turns from pending to delivered/failed (see callbacksSettled()). */
  callbacks(): CallbackRecord[] {
    return mediaStoreOf(this).callbacks.map((c) => ({ ...c }));
  }

  /** Resolves once every callback queued so far has been delivered or has failed. */
  async callbacksSettled(): Promise<void> {
    await Promise.all(mediaStoreOf(this).chains.values());
  }

  /** One entry per Volcengine-signed request: whether its V4 signature verified, and why not. */
  signatures(): SignatureRecord[] {
    return mediaStoreOf(this).signatures.map((s) => ({ ...s }));
  }

  /** What the OpenAI images and Gemini endpoints received (model, size/imageConfig, number of input images, …). */
  imageRequests(): ImageRequestRecord[] {
    return mediaStoreOf(this).images.map((r) => ({ ...r }));
  }

  sunoFetches(): SunoFetchStats {
    const f = mediaStoreOf(this).sunoFetches;
    return { batch: f.batch, single: f.single, batches: f.batches.map((b) => [...b]) };
  }

  /** Exact bytes GET /files/media/<name> serves (whole file), or undefined for an unknown name. */
  mediaFileBytes(name: string): Buffer | undefined {
    return mediaFileBytes(mediaStoreOf(this), name);
  }

  /** Drops media tasks, files, logs and timers. */
  clearMedia(): void {
    mediaStoreOf(this).clear();
  }
}

/** `/_sim/media/*`; returns false when the path is not a media control route so other control planes answer. */
export function serveMediaControl(req: IncomingMessage, res: ServerResponse, path: string, control: Control): boolean {
  if (!(control instanceof MediaControl) || !path.startsWith('/_sim/media/')) return false;
  const route = `${req.method} ${path.replace(/\/+$/, '')}`;
  const views: Record<string, () => unknown> = {
    'GET /_sim/media/tasks': () => ({ data: control.mediaTasks() }),
    'GET /_sim/media/callbacks': () => ({ data: control.callbacks() }),
    'GET /_sim/media/signatures': () => ({ data: control.signatures() }),
    'GET /_sim/media/images': () => ({ data: control.imageRequests() }),
    'GET /_sim/media/suno-fetches': () => control.sunoFetches(),
    'DELETE /_sim/media/tasks': () => (control.clearMedia(), { ok: true }),
  };
  const view = views[route];
  if (view) sendJson(res, 200, view());
  else sendJson(res, 404, errorBody(`Unknown control route (${route})`, 'invalid_request_error', null, null));
  return true;
}
