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
