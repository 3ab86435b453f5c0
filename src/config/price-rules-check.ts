// What a price's schema cannot say: a rate given twice (old and new field), a dimension whose default it does not
// price, a variant naming a dimension or a value the price does not have, a body path that cannot be read. Run on
// each vendor file's models (findings point into the file) and on channels.yaml's own.
import type { Model, Price } from '../types/generated/channels.js';
import type { UsagePaths } from '../types/generated/routes.js';
import { pathProblem } from '../transform/usage-paths.js';
import { normalize, type Scalar } from '../billing/price-rules.js';

type Report = (pointer: string, message: string) => void;

export function priceRules(models: Record<string, Model>, base: string, at: Report): void {
  for (const [name, m] of Object.entries(models)) checkPrice(m.price, `${base}/${escape(name)}/price`, at);
}

function checkPrice(p: Price, ptr: string, at: Report): void {
  if (p.input_per_mtok !== undefined && p.tokens?.input !== undefined) at(`${ptr}/input_per_mtok`, 'the input rate is given twice (`input_per_mtok` and `tokens.input`): keep `tokens.input`');
  if (p.output_per_mtok !== undefined && p.tokens?.output !== undefined) at(`${ptr}/output_per_mtok`, 'the output rate is given twice (`output_per_mtok` and `tokens.output`): keep `tokens.output`');
  checkTiers(p.tiers, `${ptr}/tiers`, at);
  const dims = new Map<string, Scalar[] | 'present'>();
  for (const [name, d] of Object.entries(p.dimensions ?? {})) {
    d.at.forEach((path, i) => { const bad = pathProblem(path); if (bad) at(`${ptr}/dimensions/${name}/at/${i}`, bad); });
    if (d.present) { dims.set(name, 'present'); continue; }
    const values = (d.values ?? []).map(normalize);
    if (d.default !== undefined && !values.includes(normalize(d.default))) at(`${ptr}/dimensions/${name}/default`, `the default ${JSON.stringify(d.default)} is not one of the values priced`);
    dims.set(name, values);
  }
  (p.variants ?? []).forEach((v, i) => {
    checkTiers(v.tiers, `${ptr}/variants/${i}/tiers`, at);
    if (typeof v.when.field === 'string') return;
    for (const [dim, want] of Object.entries(v.when)) {
      const known = dims.get(dim);
      const where = `${ptr}/variants/${i}/when/${dim}`;
      if (!known) { at(where, `no dimension "${dim}" in this price (it has ${[...dims.keys()].join(', ') || 'none'})`); continue; }
      for (const x of Array.isArray(want) ? want : [want]) {
        const ok = known === 'present' ? typeof x === 'boolean' : known.includes(normalize(x as Scalar));
        if (!ok) at(where, `${JSON.stringify(x)} is not a value of dimension "${dim}"`);
      }
    }
  });
}

function checkTiers(tiers: Price['tiers'], ptr: string, at: Report): void {
  const seen = new Set<number>();
  tiers?.forEach((t, i) => {
    if (seen.has(t.above)) at(`${ptr}/${i}/above`, `two tiers start above ${t.above} tokens`);
    seen.add(t.above);
  });
}

/** Every path of a usage declaration must be readable (routes.yaml `usage`, a dialect's, an operation's). */
export function usagePathRules(u: UsagePaths, ptr: string, at: Report): void {
  const lists: [string, string[]][] = [['at', u.at], ['prompt_tokens', u.prompt_tokens], ['completion_tokens', u.completion_tokens],
    ['seconds', u.seconds ?? []], ['units', u.units ?? []], ...Object.entries(u.details ?? {}).map(([k, v]): [string, string[]] => [`details/${k}`, v as string[]])];
  for (const [key, paths] of lists) paths.forEach((path, i) => { const bad = pathProblem(path); if (bad) at(`${ptr}/${key}/${i}`, bad); });
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
