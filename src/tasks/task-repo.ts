// Task records in the keyv store; finished ones expire after the retention period.
import type Keyv from 'keyv';
import type { Store } from '../store/open-store.js';
import { isFinal, type TaskRecord } from './task-record.js';

export class TaskRepo {
  private readonly kv: Keyv;
  constructor(store: Store, private readonly retentionS: () => number) {
    this.kv = store.kv('tasks');
  }

  get(id: string): Promise<TaskRecord | undefined> {
    return this.kv.get<TaskRecord>(id);
  }

  async save(t: TaskRecord): Promise<void> {
    await this.kv.set(t.id, t, isFinal(t.status) ? this.retentionS() * 1000 : undefined);
  }

  async delete(id: string): Promise<void> {
    await this.kv.delete(id);
  }
}
