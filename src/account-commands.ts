// `switchyard user …` and `switchyard team …`: users with wallets, teams with budgets, through the same UserAdmin and
// TeamAdmin as the admin API. Each create prints the new id alone on its last line, for scripts (`tail -n1`).
import { parseArgs } from 'node:util';
import { UserAdmin } from './admin/user-admin.js';
import { TeamAdmin } from './admin/team-admin.js';
import { TokenAdminError } from './admin/admin-error.js';
import { inviteLink } from './accounts/invites.js';

export const accountUsage = `  switchyard user create --name N [--group G] [--quota Q] [--unlimited]
  switchyard user list
  switchyard user show USER
  switchyard user topup USER AMOUNT
  switchyard user disable USER | enable USER
  switchyard user invite USER [--url BASE]   (a one-time console link; BASE: SWITCHYARD_PUBLIC_URL, else http://127.0.0.1:$PORT)
  switchyard team create --name N [--budget Q --period day|week|month] [--member-cap Q]
  switchyard team update TEAM [--budget Q] [--period day|week|month] [--member-cap Q]
  switchyard team list
  switchyard team show TEAM
  switchyard team add TEAM USER
  switchyard team remove TEAM USER
  (USER and TEAM: an id or a name)`;

/** A whole number from an option, or the option's text as given (the admin code refuses it, naming the option). */
const amount = (v: string | undefined): number | undefined => (v === undefined ? undefined : /^-?[0-9]+$/.test(v) ? Number(v) : (v as unknown as number));

export async function userCommand(users: UserAdmin, sub: string, args: string[]): Promise<number> {
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
    case 'invite': return invite(users, args);
    default: return -1;
  }
}

export async function teamCommand(teams: TeamAdmin, sub: string, args: string[]): Promise<number> {
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
    default: return -1;
  }
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
