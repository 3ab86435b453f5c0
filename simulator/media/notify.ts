// Task-change callbacks (Midjourney notifyHook): best-effort JSON POSTs, in order per task, never blocking a response; every delivery is recorded.
import type { CallbackRecord, MediaStore, MediaTask } from './store.js';

/** Short on purpose: a slow or dead hook must not pile up work in a test run. */
export const CALLBACK_TIMEOUT_MS = 2000;

/**
 * Sends `body` to the task's hook when `signature` (status + progress) differs from the last one sent.
 * Fire-and-forget: the POST runs after the caller returns, chained behind the task's earlier callbacks.
 */
export function notifyChange(store: MediaStore, task: MediaTask, signature: { status: string; progress?: string }, body: unknown): void {
  const url = task.notifyHook;
  const sig = `${signature.status}|${signature.progress ?? ''}`;
  if (!url || task.extra.lastNotified === sig) return;
  task.extra.lastNotified = sig;
  const record: CallbackRecord = {
    vendor: task.vendor, taskId: task.id, url, status: signature.status, progress: signature.progress, body, at: Date.now(), result: 'pending',
  };
  store.callbacks.push(record);
  const previous = store.chains.get(task.id) ?? Promise.resolve();
  const next = previous.then(() => deliver(record));
  store.chains.set(task.id, next);
}

async function deliver(record: CallbackRecord): Promise<void> {
  try {
    const res = await fetch(record.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(record.body),
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined); // drain so the socket can be reused
    record.httpStatus = res.status;
    record.result = res.ok ? 'delivered' : 'failed';
  } catch (err) {
    record.result = 'failed';
    record.error = (err as Error).message;
  }
}
