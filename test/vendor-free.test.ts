// The engine stays vendor-free: no channel id, vendor host, vendor path or model name from the config appears in src/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../src/config/load-config.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (f === 'generated') return [];
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

type Source = { id?: string; base_url?: string; operations?: Record<string, { path?: string; poll?: { path: string } }> };

test('no vendor names, hosts, paths or models in src/', () => {
  const read = (f: string) => parse(readFileSync(f, 'utf8'), { merge: true });
  const cfg = read(join(projectRoot, 'channels.yaml'));
  const vendors = readdirSync(join(projectRoot, 'vendors')).map((f) => ({ name: f.replace(/\.yaml$/, ''), ...read(join(projectRoot, 'vendors', f)) }));
  const needles = new Set<string>();
  const sources: Source[] = [...cfg.channels, ...vendors.map((v) => ({ id: v.name, ...v.channel }))];
  for (const c of sources) {
    if (c.id) needles.add(c.id);
    const origin = /https?:\/\/[a-z][^"}]*/.exec(c.base_url ?? '')?.[0];
    if (origin) needles.add(new URL(origin).host);
    for (const op of Object.values(c.operations ?? {})) {
      for (const p of [op.path, op.poll?.path]) if (p && p.length > 4) needles.add(p.split('{')[0]);
    }
  }
  for (const m of [...Object.keys(cfg.models), ...vendors.flatMap((v) => Object.keys(v.models))]) if (m.length > 4) needles.add(m);
  const source = files(join(projectRoot, 'src')).map((f) => [f, readFileSync(f, 'utf8')] as const);
  const hits = [...needles].flatMap((n) => source.filter(([, text]) => text.includes(n)).map(([f]) => `${n} in ${f}`));
  assert.deepEqual(hits, []);
});
