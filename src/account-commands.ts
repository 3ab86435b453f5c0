// `switchyard user …` and `switchyard team …`: users with wallets, teams with budgets, through the same UserAdmin and
// TeamAdmin as the admin API. Each create prints the new id alone on its last line, for scripts (`tail -n1`).
import { parseArgs } from 'node:util';
import { UserAdmin } from './admin/user-admin.js';
import { TeamAdmin } from './admin/team-admin.js';
import { TokenAdminError } from './admin/admin-error.js';
import { reportCsv, type AccountReports, type Report } from './admin/account-reports.js';
import { inviteLink } from './accounts/invites.js';

export const accountUsage = `  switchyard user create --name N [--group G] [--quota Q] [--unlimited]
  switchyard user list
  switchyard user show USER
  switchyard user topup USER AMOUNT
  switchyard user disable USER | enable USER
  switchyard user usage USER [--from ISO --to ISO] [--by model|token|day] [--csv]
  switchyard user invite USER [--url BASE]   (a one-time console link; BASE: SWITCHYARD_PUBLIC_URL, else http://127.0.0.1:$PORT)
  switchyard team create --name N [--budget Q --period day|week|month] [--member-cap Q]
  switchyard team update TEAM [--budget Q] [--period day|week|month] [--member-cap Q]
  switchyard team list
  switchyard team show TEAM
  switchyard team add TEAM USER
  switchyard team remove TEAM USER
  switchyard team usage TEAM [--from ISO --to ISO] [--by model|member|token|day] [--csv]
  (USER and TEAM: an id or a name; a team's usage covers its members of now)`;

/** A whole number from an option, or the option's text as given (the admin code refuses it, naming the option). */
const amount = (v: string | undefined): number | undefined => (v === undefined ? undefined : /^-?[0-9]+$/.test(v) ? Number(v) : (v as unknown as number));

export async function userCommand(users: UserAdmin, reports: AccountReports, sub: string, args: string[]): Promise<number> {
  switch (sub) {
    case 'create': {
      const { values } = parseArgs({ args, options: { name: { type: 'string' }, group: { type: 'string' }, quota: { type: 'string' }, unlimited: { type: 'boolean' } } });
      if (values.name === undefined) throw new TokenAdminError('user create needs --name N', 'name');
      const u = await users.create({ name: values.name, group: values.group, quota: amount(values.quota), unlimited: values.unlimited });
      console.log(`created user ${u.name} (group ${u.group}, ${u.unlimited ? 'unlimited' : `balance ${u.balance}`})`);
      console.log(u.id);
      return 0;
    }
    case 'list':
      for (const u of await users.list()) console.log([u.id, u.name, u.group, u.team ?? '-', u.unlimited ? 'unlimited' : `balance=${u.balance}`, u.disabled ? 'disabled' : 'active'].join('\t'));
      return 0;
    case 'show': return print(await users.get(need(args[0], 'USER')));
    case 'topup': return ok(`balance ${(await users.topup(need(args[0], 'USER'), amount(need(args[1], 'AMOUNT'))!, `${Date.now()}:${process.pid}`, 'cli')).balance}`);
    case 'disable': return ok(`disabled ${(await users.setDisabled(need(args[0], 'USER'), true)).id}`);
    case 'enable': return ok(`enabled ${(await users.setDisabled(need(args[0], 'USER'), false)).id}`);
    case 'usage': return usage(args, 'USER', (ref, q) => reports.user(ref, q));
    case 'invite': return invite(users, args);
    default: return -1;
  }
}

export async function teamCommand(teams: TeamAdmin, reports: AccountReports, sub: string, args: string[]): Promise<number> {
  const options = { name: { type: 'string' }, budget: { type: 'string' }, period: { type: 'string' }, 'member-cap': { type: 'string' } } as const;
  switch (sub) {
    case 'create': {
      const { values } = parseArgs({ args, options });
      if (values.name === undefined) throw new TokenAdminError('team create needs --name N', 'name');
      const t = await teams.create({ name: values.name, budget: amount(values.budget), period: values.period, member_cap: amount(values['member-cap']) });
      console.log(`created team ${t.name}${t.budget === null ? '' : ` (budget ${t.budget} per ${t.period})`}${t.member_cap === null ? '' : ` (member cap ${t.member_cap})`}`);
      console.log(t.id);
      return 0;
    }
    case 'update': {
      const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
      const change = { name: values.name, budget: amount(values.budget), period: values.period, member_cap: amount(values['member-cap']) };
      return print(await teams.update(need(positionals[0], 'TEAM'), Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined))));
    }
    case 'list':
      for (const t of await teams.list()) console.log([t.id, t.name, t.budget === null ? '-' : `${t.current.used}/${t.budget} per ${t.period}`, `members=${t.members.length}`].join('\t'));
      return 0;
    case 'show': return print(await teams.get(need(args[0], 'TEAM')));
    case 'add': return ok(`${(await teams.add(need(args[0], 'TEAM'), need(args[1], 'USER'))).members.length} members`);
    case 'remove': return ok(`${(await teams.remove(need(args[0], 'TEAM'), need(args[1], 'USER'))).members.length} members`);
    case 'usage': return usage(args, 'TEAM', (ref, q) => reports.team(ref, q));
    default: return -1;
  }
}

/** A report as GET /admin/{users,teams}/{id}/usage answers it: its JSON, or with --csv the same CSV file. */
async function usage(args: string[], what: string, report: (ref: string, q: { from?: string; to?: string; group_by?: string }) => Promise<Report>): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { from: { type: 'string' }, to: { type: 'string' }, by: { type: 'string' }, csv: { type: 'boolean' } } });
  const r = await report(need(positionals[0], what), { from: values.from, to: values.to, group_by: values.by });
  if (values.csv) process.stdout.write(reportCsv(r));
  else print(r);
  return 0;
}

/** Prints the link alone on the last line (for scripts: `tail -n1`); it is shown this once, only its hash is kept. */
async function invite(users: UserAdmin, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { url: { type: 'string' } }, allowPositionals: true });
  const base = values.url ?? process.env.SWITCHYARD_PUBLIC_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
  if (!/^https?:\/\/[^\s/]+\/?$/.test(base)) throw new TokenAdminError('must be the gateway\'s http(s) origin, e.g. https://gateway.example.com', 'url');
  const { user, code, expires_at } = await users.invite(need(positionals[0], 'USER'));
  console.log(`invite for ${user.name} (${user.id}): one use, until ${new Date(expires_at).toISOString()}; a newer invite voids it`);
  console.log(inviteLink(base, code));
  return 0;
}

export function need(v: string | undefined, name: string): string {
  if (!v) throw new TokenAdminError(`missing ${name}`);
  return v;
}

const ok = (msg: string) => { console.log(msg); return 0; };
const print = (v: unknown) => { console.log(JSON.stringify(v, null, 2)); return 0; };
