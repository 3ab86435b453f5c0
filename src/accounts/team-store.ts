// Teams: members (a user is in at most one, `UserRecord.team`), an optional budget per period and an optional cap
// per member within that period. Each period's budget is an account of its own (`~<team>@<period>`), made at its first
// use with the budget as its balance, so a budget resets by itself at the boundary on every instance.
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/store.js';
import { CachedRecords } from './cached-records.js';
import type { Period } from './periods.js';

export interface TeamRecord {
  id: string;
  name: string;
  /** Units per period; absent: no team budget (members spend from their wallets alone). */
  budget?: number;
  /** The period of the budget and of the member cap (month when only a member cap is set). */
  period?: Period;
  /** Units one member may spend per period. */
  member_cap?: number;
  created_at: number;
}

export const teamBudgetAccount = (team: string, periodKey: string) => `~${team}@${periodKey}`;
export const memberCapAccount = (team: string, periodKey: string, user: string) => `~${team}@${periodKey}/${user}`;
export const isTeamId = (s: string) => /^team_[0-9a-f]{12}$/.test(s);

export class TeamStore {
  readonly records: CachedRecords<TeamRecord>;

  constructor(store: Store, cacheMs: number) {
    this.records = new CachedRecords<TeamRecord>(store, store.kv('teams'), 'team:', cacheMs);
  }

  async create(t: Omit<TeamRecord, 'id' | 'created_at'>): Promise<TeamRecord> {
    const rec: TeamRecord = { ...t, id: `team_${randomBytes(6).toString('hex')}`, created_at: Math.floor(Date.now() / 1000) };
    await this.records.create(rec);
    return rec;
  }

  get(id: string): Promise<TeamRecord | undefined> {
    return this.records.get(id);
  }

  find(ref: string): Promise<TeamRecord | undefined> {
    return this.records.find(ref, isTeamId);
  }

  /** A new name takes the old one's place in the index of names. */
  async update(rec: TeamRecord): Promise<void> {
    await this.records.putNamed(rec.id, rec);
  }

  list(): Promise<TeamRecord[]> {
    return this.records.sorted();
  }
}
