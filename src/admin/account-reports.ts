// Usage reports of a user or a team for any range: the one code path behind GET /admin/users/{id}/usage,
// GET /admin/teams/{id}/usage and `switchyard user|team usage`. They read the usage rollups, where each closed request
// is counted once, on its token's account, tagged with its user's id (budget levels, `~…`, keep no rollups). A team's
// report covers the users who are its members now: one who left takes their spending along, one who joined brings theirs.
import { GatewayError } from '../http/errors.js';
import type { Runtime } from '../config/runtime.js';
import type { Store } from '../store/store.js';
import { addCounts, noUsage, type UsageRow } from '../store/usage.js';
import { csvCell } from '../request-log/csv.js';
import { usageClasses } from '../store/ledger-entry.js';
import { TokenAdminError } from './admin-error.js';
import { readRange, type TimeRange } from './time-range.js';
import { coveredHours, totalOf, withUsd } from './usage-rows.js';
import type { UserAdmin } from './user-admin.js';
import type { TeamAdmin } from './team-admin.js';

export const userGroupings = ['model', 'token', 'day'] as const;
export const teamGroupings = ['model', 'member', 'token', 'day'] as const;
type By = (typeof teamGroupings)[number];

/** As a query or the CLI's options give them: `from` and `to` (unix seconds or ISO 8601), `group_by`. */
export interface ReportQuery { from?: string; to?: string; group_by?: string }

type Row = UsageRow & { name?: string };
export interface Report {
  object: 'usage'; user?: { id: string; name: string }; team?: { id: string; name: string }; members?: { id: string; name: string }[];
  group_by: By; granularity: 'hour'; from: string; to: string; units_per_usd: number; data: Row[]; total: UsageRow;
}

export class AccountReports {
  constructor(private readonly store: Store, private readonly users: UserAdmin, private readonly teams: TeamAdmin, private readonly runtime: () => Runtime) {}

  async user(ref: string, q: ReportQuery): Promise<Report> {
    const u = await this.users.find(ref);
    const by = groupingOf(q.group_by, userGroupings);
    const range = rangeOf(q);
    const rows = await this.store.quota.usage({ ...range, groupBy: by, user: u.id });
    return this.report({ user: { id: u.id, name: u.name } }, by, range, rows);
  }

  /** One query by user (and the grouping within), kept to the members: one pass whatever the team's size. */
  async team(ref: string, q: ReportQuery): Promise<Report> {
    const t = await this.teams.find(ref);
    const by = groupingOf(q.group_by, teamGroupings);
    const range = rangeOf(q);
    const members = (await this.teams.members(t.id)).map((u) => ({ id: u.id, name: u.name }));
    const names = new Map(members.map((m) => [m.id, m.name]));
    const cells = members.length ? await this.store.quota.usage({ ...range, groupBy: 'user', thenBy: by === 'member' ? undefined : by }) : [];
    const mine = cells.filter((c) => names.has(c.key));
    const rows = by === 'member' ? mine.map((r) => ({ ...r, name: names.get(r.key) })) : regroup(mine);
    return this.report({ team: { id: t.id, name: t.name }, members }, by, range, rows);
  }

  private report(whose: Pick<Report, 'user' | 'team' | 'members'>, by: By, range: TimeRange, rows: Row[]): Report {
    const perUsd = this.runtime().unitsPerUsd;
    return {
      object: 'usage', ...whose, group_by: by, granularity: 'hour', ...coveredHours(range), units_per_usd: perUsd,
      data: rows.map((r) => withUsd(r, perUsd)), total: withUsd(totalOf(rows), perUsd),
    };
  }
}

/** Rows of (user, value) summed by value, in the value's order. */
function regroup(cells: UsageRow[]): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  for (const c of cells) {
    const key = c.sub ?? '';
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { key, ...noUsage() }));
    addCounts(r, c);
  }
  return [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function groupingOf<T extends readonly By[]>(raw: string | undefined, allowed: T): T[number] {
  const by = raw ?? 'model';
  if (!(allowed as readonly string[]).includes(by)) throw new TokenAdminError(`\`group_by\` must be one of ${allowed.join(', ')} (got ${by.slice(0, 40)})`, 'group_by');
  return by as T[number];
}

/** The range as GET /admin/usage reads it (default the last 30 days, at most 400); a bad one is the caller's input. */
function rangeOf(q: ReportQuery): TimeRange {
  try {
    return readRange({ from: q.from, to: q.to }, ['from', 'to'], 30, 400);
  } catch (err) {
    if (err instanceof GatewayError) throw new TokenAdminError(err.message);
    throw err;
  }
}

const counts = ['requests', 'prompt_tokens', 'completion_tokens', ...usageClasses, 'units', 'charged', 'uncharged', 'charged_usd'] as const;

/** A report as CSV (RFC 4180): a header row, then a row per key (members with their names); no total row. */
export function reportCsv(r: Report): string {
  const head = [r.group_by, ...(r.group_by === 'member' ? ['name'] : []), ...counts];
  const rows = r.data.map((d) => {
    const row = d as unknown as Record<string, unknown>;
    return [d.key, ...(r.group_by === 'member' ? [d.name] : []), ...counts.map((c) => row[c])].map(csvCell).join(',');
  });
  return [head.join(','), ...rows].map((l) => `${l}\r\n`).join('');
}
