// Runs the synchronous SQLite writes queued during one event-loop turn inside a single transaction:
// one commit for many requests, and each caller still learns its own statement's outcome before it goes on.
import type { StateDb } from './sqlite-state.js';

interface Op { run(): unknown; resolve(v: unknown): void; reject(e: unknown): void }

export class WriteBatch {
  private queue: Op[] = [];
  private scheduled = false;
  private readonly commit;

  constructor(db: StateDb) {
    // A failing statement (e.g. a refused reservation) aborts only itself; the others in the batch commit.
    this.commit = db.transaction((ops: Op[]) => ops.map((op) => {
      try { return { ok: true as const, value: op.run() }; } catch (error) { return { ok: false as const, error }; }
    }));
  }

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const ops = this.queue;
    this.queue = [];
    this.scheduled = false;
    let results;
    try {
      results = this.commit(ops);
    } catch (err) {
      for (const op of ops) op.reject(err); // nothing committed: every caller sees the failure
      return;
    }
    results.forEach((r, i) => (r.ok ? ops[i].resolve(r.value) : ops[i].reject(r.error)));
  }
}
