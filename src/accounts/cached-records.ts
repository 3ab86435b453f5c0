// Records the request path reads on every request (a token's user and team), cached like tokens: for a bounded time,
// and dropped on every instance when one changes (the store's invalidation messages, under a prefix of their own).
import type Keyv from 'keyv';
import type { Store } from '../store/store.js';

const maxCached = 50_000;

export class CachedRecords<T> {
  private readonly cache = new Map<string, { rec: T | undefined; at: number }>();
  /** Bumped on every invalidation: a read that started before one must not cache its possibly stale answer. */
  private generation = 0;

  /** `prefix`: this kind's mark on invalidation messages (`usr:`), so other kinds' messages pass it by. */
  constructor(private readonly store: Store, readonly kv: Keyv, private readonly prefix: string, private readonly cacheMs: number) {
    if (cacheMs > 0) store.onInvalidate?.((key) => {
      if (key === undefined) this.forget();
      else if (key.startsWith(prefix)) this.forget(key.slice(prefix.length));
    });
  }

  async get(id: string): Promise<T | undefined> {
    if (this.cacheMs <= 0) return this.kv.get<T>(`id:${id}`);
    const now = Date.now();
    let hit = this.cache.get(id);
    if (!hit || now - hit.at > this.cacheMs) {
      const generation = this.generation;
      hit = { rec: await this.kv.get<T>(`id:${id}`), at: now };
      if (generation === this.generation) {
        if (this.cache.size >= maxCached) this.cache.clear();
        this.cache.set(id, hit);
      }
    }
    return hit.rec;
  }

  /** Writes the record and drops it from every instance's cache (after the write, so a re-read sees it). */
  async put(id: string, rec: T): Promise<void> {
    await this.kv.set(`id:${id}`, rec);
    this.forget(id);
    await this.store.publishInvalidate?.(`${this.prefix}${id}`);
  }

  /**
   * Writes a record kept under a unique name as well (`name:<name>` → id): a new name points at the record before the
   * old one is dropped, so a lookup by either finds it throughout.
   */
  async putNamed(id: string, rec: T & { name: string }): Promise<void> {
    const before = await this.kv.get<T & { name: string }>(`id:${id}`);
    const renamed = before !== undefined && before.name !== rec.name;
    if (renamed) await this.kv.set(`name:${rec.name}`, id);
    await this.put(id, rec);
    if (renamed) await this.kv.delete(`name:${before.name}`);
  }

  /** A new record under its unique name: the name is indexed before the record is written. */
  async create(rec: T & { id: string; name: string }): Promise<void> {
    await this.kv.set(`name:${rec.name}`, rec.id);
    await this.put(rec.id, rec);
  }

  idOfName(name: string): Promise<string | undefined> {
    return this.kv.get<string>(`name:${name}`);
  }

  /** The record by id when `isId(ref)`, else by name. */
  async find(ref: string, isId: (s: string) => boolean): Promise<T | undefined> {
    if (isId(ref)) return this.get(ref);
    const id = await this.idOfName(ref);
    return id ? this.get(id) : undefined;
  }

  /** Every record, oldest first (ids break ties within a second). */
  async sorted(): Promise<T[]> {
    const rank = (r: T) => r as T & { id: string; created_at: number };
    return (await this.all()).sort((a, b) => rank(a).created_at - rank(b).created_at || (rank(a).id < rank(b).id ? -1 : 1));
  }

  async all(): Promise<T[]> {
    const out: T[] = [];
    for await (const [k, v] of this.kv.iterator!(undefined) as AsyncGenerator<[string, unknown]>) {
      if (String(k).startsWith('id:')) out.push(v as T);
    }
    return out;
  }

  private forget(id?: string): void {
    this.generation++;
    if (id === undefined) this.cache.clear();
    else this.cache.delete(id);
  }
}
