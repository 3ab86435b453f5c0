#!/usr/bin/env node
// `switchyard`: check the config, and manage tokens in the store.
import { parseArgs } from 'node:util';
import { checkConfig } from './config/check.js';
import { defaultConfigDir, loadRuntime, schemaRegistry } from './config/load-config.js';
import { formatDiagnostic } from './config/diagnostics.js';
import { openStore } from './store/open-store.js';
import { TokenStore } from './store/token-store.js';

const usage = `usage:
  switchyard check [--dir DIR]
  switchyard token create --group G --quota Q [--models a,b] [--user U] [--name N] [--expires-in-days D]
  switchyard token list
  switchyard token revoke ID
  switchyard token topup ID AMOUNT
  switchyard token show ID`;

async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  if (cmd === 'check') return check(argv.slice(1));
  if (cmd === 'token' && sub) return token(sub, rest);
  console.error(usage);
  return 2;
}

function check(args: string[]): number {
  const { values } = parseArgs({ args, options: { dir: { type: 'string' } } });
  const dir = values.dir ?? defaultConfigDir();
  const result = checkConfig(dir, schemaRegistry(dir));
  for (const d of result.diagnostics) console.error(formatDiagnostic(d));
  const errors = result.diagnostics.filter((d) => d.level === 'error').length;
  console.log(result.ok ? 'config OK' : `config has ${errors} error${errors === 1 ? '' : 's'}`);
  return result.ok ? 0 : 1;
}

async function token(sub: string, args: string[]): Promise<number> {
  const store = await openStore();
  const tokens = new TokenStore(store, 0);
  try {
    switch (sub) {
      case 'create': return await create(tokens, args);
      case 'list': {
        for (const t of await tokens.list()) {
          const balance = await store.quota.balance(t.id);
          console.log([t.id, t.group, t.user, `balance=${balance ?? 0}`, t.revoked ? 'revoked' : 'active', t.models?.join(',') ?? '*'].join('\t'));
        }
        return 0;
      }
      case 'revoke': return (await tokens.revoke(args[0])) ? ok(`revoked ${args[0]}`) : notFound(args[0]);
      case 'topup': {
        const amount = Number(args[1]);
        if (!(await tokens.byId(args[0]))) return notFound(args[0]);
        if (!Number.isInteger(amount) || amount <= 0) { console.error('AMOUNT must be a positive integer'); return 2; }
        await store.quota.topup(args[0], amount, `cli:${Date.now()}:${process.pid}`);
        return ok(`balance ${await store.quota.balance(args[0])}`);
      }
      case 'show': {
        const t = await tokens.byId(args[0]);
        if (!t) return notFound(args[0]);
        console.log(JSON.stringify({ ...t, hash: undefined, balance: await store.quota.balance(t.id) }, null, 2));
        return 0;
      }
      default: console.error(usage); return 2;
    }
  } finally {
    await store.close();
  }
}

async function create(tokens: TokenStore, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: {
    group: { type: 'string' }, quota: { type: 'string' }, models: { type: 'string' }, user: { type: 'string' },
    name: { type: 'string' }, 'expires-in-days': { type: 'string' },
  } });
  const quota = Number(values.quota);
  if (!values.group || !Number.isInteger(quota) || quota < 0) { console.error('token create needs --group G and --quota Q (a non-negative integer)'); return 2; }
  const { runtime } = loadRuntime();
  if (!runtime.groups.has(values.group)) { console.error(`unknown group "${values.group}" (groups: ${[...runtime.groups.keys()].join(', ')})`); return 2; }
  const days = values['expires-in-days'] ? Number(values['expires-in-days']) : undefined;
  const { key, record } = await tokens.create({
    group: values.group, quota, user: values.user, name: values.name,
    models: values.models?.split(',').map((m) => m.trim()).filter(Boolean),
    expiresAt: days ? Math.floor(Date.now() / 1000 + days * 86400) : undefined,
  });
  console.log(`created ${record.id} (group ${record.group}, quota ${quota}${record.models ? `, models ${record.models.join(',')}` : ''})`);
  console.log(key); // alone on the last line, so scripts can take it with `tail -n1`
  return 0;
}

const ok = (msg: string) => { console.log(msg); return 0; };
const notFound = (id: string) => { console.error(`no token ${id}`); return 1; };

main(process.argv.slice(2)).then((code) => process.exit(code), (err) => { console.error(err.message ?? err); process.exit(1); });
