// Task records in the keyv store; finished ones expire after the retention period. Each task is also in the store's
// catalog (by owner, family and creation) from its first save until it is deleted, so listings need no scan.
import type Keyv from 'keyv';
import type { Store } from '../store/open-store.js';
import type { TaskCatalog } from '../store/task-catalog.js';
import { isFinal, type TaskRecord } from './task-record.js';

export class TaskRepo {
  private readonly kv: Keyv;
  private readonly catalog: TaskCatalog;
  constructor(store: Store, private readonly retentionS: () => number) {
    this.kv = store.kv('tasks');
    this.catalog = store.catalog;
  }

  get(id: string): Promise<TaskRecord | undefined> {
    return this.kv.get<TaskRecord>(id);
  }

  /**
   * A new task's first record, then its catalog entry (in that order: a listing that finds an entry without a
   * record takes it for an expired one). Repeating it for another attempt keeps the first entry. `createdMs` is
   * the moment `created_at` was read from, so the catalog's order agrees with the records' to the millisecond.
   */
  async create(t: TaskRecord, createdMs: number): Promise<void> {
    await this.save(t);
    await this.catalog.add({ id: t.id, user: t.owner.user, family: t.family, model: t.model, created_ms: createdMs });
  }

  async save(t: TaskRecord): Promise<void> {
    await this.kv.set(t.id, t, isFinal(t.status) ? this.retentionS() * 1000 : undefined);
  }

  async delete(id: string): Promise<void> {
    await this.kv.delete(id);
    await this.catalog.remove(id);
  }
}
