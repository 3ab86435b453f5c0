// File records in the keyv store, each expiring with its file, and the store's file catalog (by owner, purpose and
// creation) for listings. A record is written before its catalog entry, as tasks are: a listing that meets an entry
// without a record takes it for an expired one.
import type Keyv from 'keyv';
import type { Store } from '../store/open-store.js';
import type { TaskCatalog } from '../store/task-catalog.js';
import type { FileRecord } from './file-record.js';

export class FileRepo {
  private readonly kv: Keyv;
  readonly catalog: TaskCatalog;
  constructor(store: Store) {
    this.kv = store.kv('files');
    this.catalog = store.files;
  }

  get(id: string): Promise<FileRecord | undefined> {
    return this.kv.get<FileRecord>(id);
  }

  /** Idempotent: the same record again keeps its first catalog entry. */
  async create(f: FileRecord, createdMs: number): Promise<void> {
    await this.kv.set(f.id, f, Math.max(1000, f.expires_at * 1000 - Date.now()));
    await this.catalog.add({ id: f.id, user: f.owner.user, family: f.purpose, model: f.channel, created_ms: createdMs });
  }

  async delete(id: string): Promise<void> {
    await this.kv.delete(id);
    await this.catalog.remove(id);
  }
}
