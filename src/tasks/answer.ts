// Shapes a task for the client: the route's JSONata `answer`, else the unified video objects.
import type { ServerResponse } from 'node:http';
import type { Gateway } from '../pipeline/gateway.js';
import type { CompiledRoute } from '../config/runtime.js';
import { publicView, videoObject, type TaskRecord } from '../records/task-record.js';
import { sendJson } from '../http/send-json.js';
import type { Video } from '../types/generated/video.response.js';

export async function taskBody(g: Gateway, route: CompiledRoute, rec: TaskRecord, baseUrl: string): Promise<unknown> {
  const view = publicView(rec, contentUrl(g, rec, baseUrl));
  if (route.task?.answer) return route.task.answer.run(view, { base_url: baseUrl });
  if (route.task?.action === 'submit') {
    return {
      id: view.id, task_id: view.task_id, object: 'video', model: view.model, status: view.status, progress: view.progress, created_at: view.created_at,
      ...(rec.source_id ? { remixed_from_video_id: rec.source_id } : {}),
    } satisfies Video;
  }
  return videoObject(view, rec.source_id ?? null);
}

export async function answerTask(g: Gateway, route: CompiledRoute, rec: TaskRecord, res: ServerResponse, baseUrl: string): Promise<void> {
  sendJson(res, 200, await taskBody(g, route, rec, baseUrl));
}

/** The gateway's own download route for the task's family; results are never handed out as vendor URLs. */
function contentUrl(g: Gateway, rec: TaskRecord, baseUrl: string): string | undefined {
  const route = g.runtime.routes.find((r) => r.task?.action === 'content' && (!r.task.families || r.task.families.includes(rec.family)));
  return route ? `${baseUrl}${route.path.replace('{id}', rec.id)}` : undefined;
}
