// Records the database could not take yet, on disk, so they survive the database's outage and this process's restart:
// one file a batch (JSON lines) in the spool directory, written whole under a temporary name and then renamed, read
// back oldest first. Bounded in bytes: a batch that would pass the bound is dropped (and counted), never held in
// memory instead; the money those requests moved is in the ledger either way.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RequestRecord } from './log-store.js';

export class Spool {
  private files: { name: string; bytes: number }[] = [];
  private seq = 0;
  /** Batches dropped because the spool was full, since the start. */
  dropped = 0;

  constructor(private readonly dir: string, private readonly maxBytes: number) {
    mkdirSync(dir, { recursive: true });
    // What an earlier process left (a crash, a database that never came back): drained like any other batch.
    this.files = readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort()
      .map((name) => ({ name, bytes: statSync(join(dir, name)).size }));
  }

  get batches(): number { return this.files.length; }
  get bytes(): number { return this.files.reduce((s, f) => s + f.bytes, 0); }

  /** Keeps a batch; false when it does not fit (the caller counts it lost). */
  async append(records: RequestRecord[]): Promise<boolean> {
    const text = `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
    const bytes = Buffer.byteLength(text);
    if (this.bytes + bytes > this.maxBytes) {
      this.dropped += records.length;
      return false;
    }
    // Names sort in the order batches were written, across restarts too (time first, then this process's count).
    const name = `${Date.now().toString(36).padStart(10, '0')}-${process.pid}-${(this.seq++).toString(36).padStart(6, '0')}.jsonl`;
    await writeFile(join(this.dir, `${name}.tmp`), text);
    await rename(join(this.dir, `${name}.tmp`), join(this.dir, name));
    this.files.push({ name, bytes });
    return true;
  }

  /** The oldest batch still waiting, with a function that forgets it once the database has it. */
  async oldest(): Promise<{ records: RequestRecord[]; done: () => Promise<void> } | undefined> {
    const f = this.files[0];
    if (!f) return undefined;
    const text = await readFile(join(this.dir, f.name), 'utf8').catch(() => '');
    const records = text.split('\n').filter(Boolean).flatMap((line) => {
      try { return [JSON.parse(line) as RequestRecord]; } catch { return []; } // a torn line of a crash mid-write
    });
    return {
      records,
      done: async () => {
        await rm(join(this.dir, f.name), { force: true });
        this.files = this.files.filter((x) => x !== f);
      },
    };
  }
}
