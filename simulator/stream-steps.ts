// Plays a prepared SSE reply step by step, paced by `interval_ms`, with the counters the abort tests read: shared by
// every simulated vendor that streams.
import type { Ctx } from './http.js';
import { sleep, write } from './http.js';

/** One SSE frame to write, or the point where the vendor drops the connection mid-stream. */
export type Step = { data: string } | { cut: true };

export async function playSteps(ctx: Ctx, steps: Step[], opts: { contentType: string; intervalMs: number; complete: (last: string) => boolean }): Promise<void> {
  const { res, signal, control } = ctx;
  let cut = false;
  control.count('streams_started');
  // 'close' before 'finish' means the client left early; that is what abort-propagation tests look for.
  res.on('close', () => {
    if (!res.writableFinished && !cut) control.count('streams_aborted');
  });
  res.socket?.setNoDelay(true);
  res.writeHead(200, { 'content-type': opts.contentType, 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  for (const [i, step] of steps.entries()) {
    if (i > 0 && !(await sleep(opts.intervalMs, signal))) return;
    if ('cut' in step) {
      cut = true;
      res.socket?.destroy();
      return;
    }
    if (!(await write(res, step.data, signal))) return;
  }
  res.end();
  const last = steps.at(-1);
  if (last && 'data' in last && opts.complete(last.data)) control.count('streams_completed');
}
