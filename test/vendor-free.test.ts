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

test('no vendor names, hosts, paths or models in src/', () => {
  const cfg = parse(readFileSync(join(projectRoot, 'channels.yaml'), 'utf8'));
  const needles = new Set<string>();
  for (const c of cfg.channels) {
    needles.add(c.id);
    if (/^https?:\/\/[a-z]/.test(c.base_url)) needles.add(new URL(c.base_url).host);
    for (const op of Object.values(c.operations ?? {}) as { path?: string; poll?: { path: string } }[]) {
      for (const p of [op.path, op.poll?.path]) if (p && p.length > 4) needles.add(p.split('{')[0]);
    }
  }
  for (const m of Object.keys(cfg.models)) if (m.length > 4) needles.add(m);
  const source = files(join(projectRoot, 'src')).map((f) => [f, readFileSync(f, 'utf8')] as const);
  const hits = [...needles].flatMap((n) => source.filter(([, text]) => text.includes(n)).map(([f]) => `${n} in ${f}`));
  assert.deepEqual(hits, []);
});
