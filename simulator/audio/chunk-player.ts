// Sends binary audio in chunks (chunked transfer encoding), paced like the SSE streams and counted in the same stream
// stats, so abort tests work on speech too: a client leaving early counts as streams_aborted, a full answer as
// streams_completed, and `cut_after` destroys the socket mid-body as a dying vendor would.
import type { Ctx } from '../http.js';
import { sleep, write } from '../http.js';

export interface ChunkPlan {
  contentType: string;
  chunks: Buffer[];
  intervalMs: number;
  /** Destroy the socket after this many chunks (no terminating zero-length chunk). */
  cutAfter?: number;
}

export async function playChunks(ctx: Ctx, plan: ChunkPlan): Promise<void> {
  const { res, signal, control } = ctx;
  let cut = false;
  control.count('streams_started');
  res.on('close', () => {
    if (!res.writableFinished && !cut) control.count('streams_aborted');
  });
  res.socket?.setNoDelay(true);
  res.writeHead(200, { 'content-type': plan.contentType, 'cache-control': 'no-store' });
  res.flushHeaders();
  for (const [i, chunk] of plan.chunks.entries()) {
    if (i === plan.cutAfter) {
      cut = true;
      res.socket?.destroy();
      return;
    }
    if (i > 0 && !(await sleep(plan.intervalMs, signal))) return;
    if (!(await write(res, chunk, signal))) return;
  }
  res.end();
  control.count('streams_completed');
}
