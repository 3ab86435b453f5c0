// TaskCatalog in SQLite: one table, ordered by (created_ms, id); each page is one indexed range read.
import type { StateDb } from './sqlite-state.js';
import type { CatalogEntry, CatalogPage, CatalogQuery, TaskCatalog } from './task-catalog.js';
import type { Statement } from 'better-sqlite3';

const schema = `
  CREATE TABLE IF NOT EXISTS task_catalog (id TEXT PRIMARY KEY, user TEXT NOT NULL, family TEXT NOT NULL,
    model TEXT NOT NULL, created_ms INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS task_catalog_owner ON task_catalog(user, family, created_ms, id);
  CREATE INDEX IF NOT EXISTS task_catalog_time ON task_catalog(created_ms, id);`;

export class SqliteTaskCatalog implements TaskCatalog {
  private readonly stmt;
  /** Page statements by the filters present, prepared once each. */
  private readonly pages = new Map<string, Statement>();

  constructor(private readonly db: StateDb) {
    db.exec(schema);
    this.stmt = {
      add: db.prepare('INSERT INTO task_catalog (id, user, family, model, created_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING'),
      remove: db.prepare('DELETE FROM task_catalog WHERE id = ?'),
      cursor: db.prepare('SELECT user, family, created_ms FROM task_catalog WHERE id = ?'),
      prune: db.prepare('DELETE FROM task_catalog WHERE id IN (SELECT id FROM task_catalog WHERE created_ms < ? ORDER BY created_ms LIMIT ?)'),
    };
  }

  async add(e: CatalogEntry): Promise<void> {
    this.stmt.add.run(e.id, e.user, e.family, e.model, e.created_ms);
  }

  async remove(id: string): Promise<void> {
    this.stmt.remove.run(id);
  }

  async page(q: CatalogQuery): Promise<CatalogPage | undefined> {
    const args: (string | number)[] = [];
    if (q.user !== undefined) args.push(q.user);
    if (q.family !== undefined) args.push(q.family);
    if (q.after !== undefined) {
      const c = this.stmt.cursor.get(q.after) as { user: string; family: string; created_ms: number } | undefined;
      if (!c || (q.user !== undefined && c.user !== q.user) || (q.family !== undefined && c.family !== q.family)) return undefined;
      args.push(c.created_ms, q.after);
    }
    const ids = this.pageStatement(q).pluck().all(...args, q.limit + 1) as string[];
    return { ids: ids.slice(0, q.limit), more: ids.length > q.limit };
  }

  async prune(beforeMs: number, limit: number): Promise<number> {
    return this.stmt.prune.run(beforeMs, limit).changes;
  }

  private pageStatement(q: CatalogQuery): Statement {
    const key = `${q.user !== undefined}${q.family !== undefined}${q.after !== undefined}${q.order}`;
    let s = this.pages.get(key);
    if (!s) {
      const [cmp, dir] = q.order === 'asc' ? ['>', 'ASC'] : ['<', 'DESC'];
      const where = [q.user !== undefined && 'user = ?', q.family !== undefined && 'family = ?', q.after !== undefined && `(created_ms, id) ${cmp} (?, ?)`].filter(Boolean);
      s = this.db.prepare(`SELECT id FROM task_catalog ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_ms ${dir}, id ${dir} LIMIT ?`);
      this.pages.set(key, s);
    }
    return s;
  }
}
