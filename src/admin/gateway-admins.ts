// The admin code paths over the running gateway's store, accounts and request log: each API call makes its own (they
// hold nothing), and they write through the gateway's account caches, so this instance sees a change at once.
import type { Gateway } from '../pipeline/gateway.js';
import { TokenAdmin } from './token-admin.js';
import { UserAdmin } from './user-admin.js';
import { TeamAdmin } from './team-admin.js';
import { AccountReports } from './account-reports.js';

/** Topups go to the gateway's request log. */
export const tokenAdmin = (g: Gateway) => new TokenAdmin(g.store, g.tokens, () => g.runtime, (r) => g.requestLog?.add(r), g.accounts);

export const userAdmin = (g: Gateway) => new UserAdmin(g.store, g.accounts, () => g.runtime, (r) => g.requestLog?.add(r));

export const teamAdmin = (g: Gateway) => new TeamAdmin(g.store, g.accounts, userAdmin(g));

export const accountReports = (g: Gateway) => {
  const users = userAdmin(g);
  return new AccountReports(g.store, users, new TeamAdmin(g.store, g.accounts, users), () => g.runtime);
};
