// TaskCatalog in SQLite: one table, ordered by (created_ms, id); each page is one indexed range read. The table is
// the tasks' (`task_catalog`) or another listing's of the same shape (the files', `file_catalog`).
import type { StateDb } from './sqlite-state.js';
import type { CatalogEntry, CatalogPage, CatalogQuery, TaskCatalog } from './task-catalog.js';
import type { Statement } from 'better-sqlite3';

const schema = (t: string) => `
  CREATE TABLE IF NOT EXISTS ${t} (id TEXT PRIMARY KEY, user TEXT NOT NULL, family TEXT NOT NULL,
    model TEXT NOT NULL, created_ms INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS ${t}_owner ON ${t}(user, family, created_ms, id);
  CREATE INDEX IF NOT EXISTS ${t}_time ON ${t}(created_ms, id);`;

export class SqliteTaskCatalog implements TaskCatalog {
  private readonly stmt;
  /** Page statements by the filters present, prepared once each. */
  private readonly pages = new Map<string, Statement>();

  constructor(private readonly db: StateDb, private readonly table: 'task_catalog' | 'file_catalog' = 'task_catalog') {
    const t = table;
    db.exec(schema(t));
    this.stmt = {
      add: db.prepare(`INSERT INTO ${t} (id, user, family, model, created_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`),
      remove: db.prepare(`DELETE FROM ${t} WHERE id = ?`),
      cursor: db.prepare(`SELECT user, family, created_ms FROM ${t} WHERE id = ?`),
      prune: db.prepare(`DELETE FROM ${t} WHERE id IN (SELECT id FROM ${t} WHERE created_ms < ? ORDER BY created_ms LIMIT ?)`),
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
      s = this.db.prepare(`SELECT id FROM ${this.table} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_ms ${dir}, id ${dir} LIMIT ?`);
      this.pages.set(key, s);
    }
    return s;
  }
}
