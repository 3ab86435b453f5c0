// The catalog of tasks by owner: every task's unchanging facts (owner, family, model, creation time), ordered by
// creation then id, so one owner's tasks (or, for an operator, everyone's) are paged without reading every record.
// An entry is written when a task's record is created and removed when it is deleted; status lives on the record.
export interface CatalogEntry { id: string; user: string; family: string; model: string; created_ms: number }

/**
 * One page: the filters given (none lists every task, as an operator's listing would), then after the cursor.
 * A listing that also filters by status or model reads those from the records (or, later, from a filter here:
 * `model` is stored for that).
 */
export interface CatalogQuery {
  user?: string;
  family?: string;
  /** The page starts after this id; it must be an entry the same filters list. */
  after?: string;
  limit: number;
  /** By creation time, ties by id. */
  order: 'asc' | 'desc';
}

export interface CatalogPage { ids: string[]; more: boolean }

export interface TaskCatalog {
  /** Idempotent: an id already catalogued keeps its first entry (a submit retried on another channel). */
  add(e: CatalogEntry): Promise<void>;
  remove(id: string): Promise<void>;
  /** undefined when `after` is not an entry these filters list (unknown, removed, or someone else's). */
  page(q: CatalogQuery): Promise<CatalogPage | undefined>;
  /** Removes up to `limit` of the oldest entries created before `beforeMs` (their records expired long ago); how many. */
  prune(beforeMs: number, limit: number): Promise<number>;
}
