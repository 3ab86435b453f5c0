// Test-facing view of video state: Control plus videoTasks()/videoAssets(), also served under /_sim/video/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Control } from '../control.js';
import { errorBody, sendJson } from '../http.js';
import { assetStatus } from './ark-assets.js';
import { type Phase, type VideoTask, phaseOf, storeOf } from './task-store.js';

/** A task as tests see it: the stored fields (less internals) with its current phase and explicit nulls. */
export type VideoTaskInfo = Omit<VideoTask, 'failReason' | 'finishedAt' | 'urlTtlMs' | 'extra'> & { phase: Phase; failReason: string | null; finishedAt: number | null };

export interface VideoAssetInfo {
  id: string;
  groupId: string;
  assetType: string;
  url: string;
  gets: number;
  status: string;
}

export class VideoControl extends Control {
  /** Every video task (all vendors), oldest first, with its poll count and current phase; reading does not count as a poll. */
  videoTasks(): VideoTaskInfo[] {
    return [...storeOf(this).tasks.values()].map((t) => ({
      vendor: t.vendor, id: t.id, kind: t.kind, model: t.model, prompt: t.prompt, polls: t.polls, pollsBeforeDone: t.pollsBeforeDone,
      phase: phaseOf(t), fail: t.fail, failReason: t.failReason ?? null, sizeBytes: t.sizeBytes, fileName: t.fileName,
      createdAt: t.createdAt, finishedAt: t.finishedAt ?? null,
    }));
  }

  videoAssets(): VideoAssetInfo[] {
    return [...storeOf(this).assets.values()].map((a) => ({
      id: a.Id, groupId: a.GroupId, assetType: a.AssetType, url: a.URL, gets: a.gets, status: assetStatus(a),
    }));
  }

  /** Drops tasks, assets and asset groups (result files go with their tasks). */
  clearVideo(): void {
    storeOf(this).clear();
  }
}

/** `/_sim/video/*`; returns false when the path is not a video control route so the generic control plane answers. */
export function serveVideoControl(req: IncomingMessage, res: ServerResponse, path: string, control: Control): boolean {
  if (!(control instanceof VideoControl) || !path.startsWith('/_sim/video/')) return false;
  const route = `${req.method} ${path.replace(/\/+$/, '')}`;
  switch (route) {
    case 'GET /_sim/video/tasks':
      sendJson(res, 200, { data: control.videoTasks() });
      return true;
    case 'DELETE /_sim/video/tasks':
      control.clearVideo();
      sendJson(res, 200, { ok: true });
      return true;
    case 'GET /_sim/video/assets':
      sendJson(res, 200, { data: control.videoAssets() });
      return true;
    default:
      sendJson(res, 404, errorBody(`Unknown control route (${route})`, 'invalid_request_error', null, null));
      return true;
  }
}
