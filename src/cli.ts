#!/usr/bin/env node
// `switchyard`: check the config, price a usage, and manage tokens in the store.
import { parseArgs } from 'node:util';
import { loadRuntime } from './config/load-config.js';
import { checkCommand } from './check-command.js';
import { priceCommand } from './price-command.js';
import { defaultStoreUri, openStore } from './store/open-store.js';
import { logSettings } from './request-log/log-settings.js';
import { openLogStore } from './request-log/open-log-store.js';
import type { RequestRecord } from './request-log/log-store.js';
import { TokenStore } from './store/token-store.js';
import { TokenAdmin, TokenAdminError } from './admin/token-admin.js';
import type { Runtime } from './config/runtime.js';
import { openAccounts } from './accounts/purse.js';
import { upgradeTokens } from './accounts/upgrade-tokens.js';
import { UserAdmin } from './admin/user-admin.js';
import { TeamAdmin } from './admin/team-admin.js';
import { AccountReports } from './admin/account-reports.js';
import { accountUsage, need, teamCommand, userCommand } from './account-commands.js';

const usage = `usage:
  switchyard check [--dir DIR] [--probe [--channel ID,...]]
  switchyard price MODEL [--usage JSON] [--from DIALECT|OPERATION] [--body JSON] [--units N] [--seconds S] [--json] [--dir DIR]
  switchyard token create [--user USER] [--group G] [--quota Q] [--cap Q] [--period-cap Q --cap-period day|week|month]
                          [--unlimited] [--models a,b] [--name N] [--expires-in-days D] [--tokens-per-minute T]
  switchyard token list
  switchyard token revoke ID
  switchyard token topup ID AMOUNT
  switchyard token show ID
${accountUsage}`;

async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  if (cmd === 'check') return checkCommand(argv.slice(1));
  if (cmd === 'price') return priceCommand(argv.slice(1));
  if ((cmd === 'token' || cmd === 'user' || cmd === 'team') && sub) return accounts(cmd, sub, rest);
  console.error(usage);
  return 2;
}

async function accounts(cmd: string, sub: string, args: string[]): Promise<number> {
  const store = await openStore();
  let runtime: Runtime | undefined;
  // The config is read only by the commands that check against it (groups and models), so a broken config
  // never stops an operator from revoking a token.
  const config = () => (runtime ??= loadRuntime().runtime);
  const journal: RequestRecord[] = [];
  const tokens = new TokenStore(store, 0);
  const accounts = openAccounts(store, 0, () => config().timeZone);
  const admin = new TokenAdmin(store, tokens, config, (r) => journal.push(r), accounts);
  const users = new UserAdmin(store, accounts, config, (r) => journal.push(r));
  try {
    await upgradeTokens(store, tokens, accounts);
    const teams = new TeamAdmin(store, accounts, users);
    const reports = new AccountReports(store, users, teams, config);
    const code = cmd === 'user' ? await userCommand(users, reports, sub, args) : cmd === 'team' ? await teamCommand(teams, reports, sub, args) : await token(admin, sub, args, journal);
    if (code === -1) console.error(usage);
    await record(journal);
    return code === -1 ? 2 : code;
  } catch (err) {
    // An option parseArgs does not know, or one missing its value, is bad input like any other.
    if (String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) { console.error((err as Error).message); return 2; }
    if (!(err instanceof TokenAdminError)) throw err;
    console.error(err.field ? `${err.field}: ${err.message}` : err.message);
    return err.notFound ? 1 : err.conflict ? 3 : 2;
  } finally {
    await store.close();
  }
}

async function token(admin: TokenAdmin, sub: string, args: string[], journal: RequestRecord[]): Promise<number> {
    switch (sub) {
      case 'create': return await create(admin, args);
      case 'list': {
        for (const t of await admin.list()) {
          console.log([t.id, t.group, t.user, `balance=${t.balance}`, t.revoked ? 'revoked' : 'active', t.models?.join(',') ?? '*', t.name ?? ''].join('\t'));
        }
        return 0;
      }
      case 'revoke': return ok(`revoked ${(await admin.revoke(need(args[0], 'ID'))).id}`);
      case 'topup': {
        const t = await admin.topup(need(args[0], 'ID'), Number(need(args[1], 'AMOUNT')), `${Date.now()}:${process.pid}`, 'cli');
        return ok(`balance ${t.balance}`);
      }
      case 'show': {
        console.log(JSON.stringify(await admin.get(need(args[0], 'ID')), null, 2));
        return 0;
      }
      default: void journal; return -1;
    }
}

/** The topup goes into the request log too, as a gateway's would; a log that cannot take it is named, not fatal. */
async function record(records: RequestRecord[]): Promise<void> {
  const settings = logSettings(process.env, process.env.SWITCHYARD_STORE || defaultStoreUri);
  if (!settings || !records.length) return;
  try {
    const log = await openLogStore(settings.uri);
    await log.insert(records).finally(() => log.close());
  } catch (err) {
    console.error(`the topup is done, but the request log did not take its record: ${(err as Error).message}`);
  }
}

async function create(admin: TokenAdmin, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: {
    group: { type: 'string' }, quota: { type: 'string' }, models: { type: 'string' }, user: { type: 'string' },
    name: { type: 'string' }, 'expires-in-days': { type: 'string' }, 'tokens-per-minute': { type: 'string' },
    cap: { type: 'string' }, 'period-cap': { type: 'string' }, 'cap-period': { type: 'string' }, unlimited: { type: 'boolean' },
  } });
  const quota = values.quota === undefined ? 0 : Number(values.quota);
  if (values.unlimited && (values.cap !== undefined || values['period-cap'] !== undefined)) { console.error('--unlimited takes no --cap or --period-cap'); return 2; }
  const days = values['expires-in-days'] ? Number(values['expires-in-days']) : undefined;
  if (days !== undefined && !(days > 0)) { console.error('--expires-in-days must be a positive number'); return 2; }
  const { key, token } = await admin.create({
    group: values.group, quota, user: values.user, name: values.name,
    cap: values.cap === undefined ? undefined : Number(values.cap),
    period_cap: values['period-cap'] === undefined ? undefined : Number(values['period-cap']), cap_period: values['cap-period'],
    models: values.models?.split(',').map((m) => m.trim()).filter(Boolean),
    expires_at: days ? Math.floor(Date.now() / 1000 + days * 86400) : undefined,
    tokens_per_minute: values['tokens-per-minute'] === undefined ? undefined : Number(values['tokens-per-minute']),
  });
  console.log(`created ${token.id} (user ${token.user}, group ${token.group}, balance ${token.balance}${token.cap === null ? '' : `, cap ${token.cap}`}${token.period_cap === null ? '' : `, ${token.period_cap} per ${token.cap_period}`}${token.models ? `, models ${token.models.join(',')}` : ''})`);
  console.log(key); // alone on the last line, so scripts can take it with `tail -n1`
  return 0;
}


const ok = (msg: string) => { console.log(msg); return 0; };

main(process.argv.slice(2)).then((code) => process.exit(code), (err) => { console.error(err.message ?? err); process.exit(1); });
