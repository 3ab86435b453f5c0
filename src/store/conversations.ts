// Answers kept per owner so a later request may continue them (routes with `store`): the answer as the client got
// it, the conversation items a continuation starts from, and each item by its id for requests that refer to one.
// Keys carry the owner: another user's id is simply not found.
import type { Store } from './open-store.js';

export interface Conversation {
  id: string;
  created_at: number;
  /** The answer as the client received it (what GET returns). */
  response: unknown;
  /** The items a continuation starts from (the dialect's `conversation`). */
  items: unknown[];
  /** Serialized size, checked against the route's bound before a continuation is built. */
  bytes: number;
  /**
   * The channel whose vendor made this answer and got it untouched: that vendor keeps it too, so only there may a
   * continuation pass untouched (naming it by id); anywhere else it is translated from `items`.
   */
  kept_by?: string;
}

export class Conversations {
  constructor(private readonly store: Store) {}

  get(namespace: string, owner: string, id: string): Promise<Conversation | undefined> {
    return this.store.kv(namespace).get<Conversation>(recordKey(owner, id));
  }

  /** One stored item by its id (an item of any answer the owner kept). */
  item(namespace: string, owner: string, id: string): Promise<unknown> {
    return this.store.kv(namespace).get(itemKey(owner, id));
  }

  /**
   * Keeps an answer, and each of its items that has an id. `previous`: the items of the answer it continues, whose
   * ids were kept with that one: a conversation's items are its whole history, and writing them all again on every
   * turn made a long conversation's turn cost grow with its length. The record and its new items are one write: one
   * SQLite transaction (a record is never found without its items) and one commit, not two; one MULTI per Redis slot.
   */
  async put(namespace: string, owner: string, c: Omit<Conversation, 'bytes'>, ttlMs: number, previous: unknown[] = []): Promise<Conversation> {
    const rec = { ...c, bytes: 0 };
    rec.bytes = Buffer.byteLength(JSON.stringify(rec));
    const kept = new Set(previous.map(idOf));
    const fresh = c.items.filter((i): i is { id: string } => idOf(i) !== undefined && !kept.has(idOf(i)));
    const written = await this.store.kv(namespace).setMany([
      { key: recordKey(owner, c.id), value: rec, ttl: ttlMs },
      ...fresh.map((i) => ({ key: itemKey(owner, i.id), value: i as unknown, ttl: ttlMs })),
    ]);
    // keyv reports a failed SQLite write as false (the Redis adapter throws, and answers nothing): not kept.
    if (Array.isArray(written) && written.includes(false)) throw new Error('the store did not take the answer');
    return rec;
  }

  /** False when there was nothing to delete. Its items stay: later answers may still refer to them. */
  delete(namespace: string, owner: string, id: string): Promise<boolean> {
    return this.store.kv(namespace).delete(recordKey(owner, id));
  }
}

const idOf = (item: unknown) => {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
};

const recordKey = (owner: string, id: string) => `${owner}:r:${id}`;
const itemKey = (owner: string, id: string) => `${owner}:i:${id}`;
