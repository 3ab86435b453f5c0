// Differential test of the two JSONata evaluators on the shipped config: every JSONata slot of routes.yaml (routes and
// dialects), channels.yaml and vendors/*.yaml runs on every golden fixture input of its slot (test/golden/**, the
// dialects' own under test/golden/dialects/<dialect>/), through the compiled evaluator alone and through jsonata's;
// the outcomes must be identical as JSON (or both errors with the same code). Slots are found by walking the YAML,
// fixtures by their file names, so a new vendor file or fixture is covered without a change here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../src/config/load-config.js';
import { compileDialects } from '../src/config/compile-dialects.js';
import { compileTransform, type Transform } from '../src/transform/compile-transform.js';
import type { CompiledStream } from '../src/transform/stream-transform.js';
import type { Dialect } from '../src/types/generated/routes.js';
import { compare, compareStream } from './helpers/differential.js';

const slotKeys = new Set(['request', 'response', 'chunk', 'path_expr', 'model_expr', 'answer', 'error_answer', 'list_answer', 'resolve']);
const qualified = new Set(['poll', 'reconcile', 'content']);
const dialectSlots = ['client.request', 'client.response', 'client.stream', 'client.conversation', 'vendor.request', 'vendor.response', 'vendor.stream', 'error'];

/** Every JSONata slot of a config tree: its slot name (e.g. `poll.response`), source and where it is. */
function slotsOf(node: unknown, at: string, out: { slot: string; source: string; at: string }[], parent = ''): void {
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'dialects' || k === 'status_map') continue;
    if (typeof v === 'string' && slotKeys.has(k)) out.push({ slot: qualified.has(parent) ? `${parent}.${k}` : k, source: v, at: `${at}/${k}` });
    else slotsOf(v, `${at}/${k}`, out, k);
  }
}

const yamlOf = (file: string) => parse(readFileSync(join(projectRoot, file), 'utf8'));

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? filesUnder(join(dir, f)) : f.endsWith('.json') ? [join(dir, f)] : []));
}

/** The slot a fixture file is for: the longest known slot name its file name starts with. */
function slotOfFixture(file: string, names: string[]): string | undefined {
  const base = file.split('/').pop()!;
  return names.sort((a, b) => b.length - a.length).find((s) => base.startsWith(`${s}.`));
}

/** Bindings as the engine passes them: a dialect fixture's `recall` is the store lookup it stands for. */
function engineBindings(b: Record<string, unknown> = {}): Record<string, unknown> {
  if (!b.recall) return b;
  const items = b.recall as Record<string, unknown>;
  return { ...b, recall: async (id: unknown) => (typeof id === 'string' ? items[id] : undefined) };
}

test('differential: compiled and jsonata evaluators agree on every slot of the shipped config and every golden input', async (t) => {
  const files = ['routes.yaml', 'channels.yaml', ...readdirSync(join(projectRoot, 'vendors')).filter((f) => f.endsWith('.yaml')).map((f) => `vendors/${f}`)];
  const slots: { slot: string; source: string; at: string }[] = [];
  for (const f of files) slotsOf(yamlOf(f), f, slots);
  const goldenDir = join(projectRoot, 'test', 'golden');
  const fixtures = filesUnder(goldenDir).filter((f) => !relative(goldenDir, f).startsWith('dialects'));
  const slotNames = [...new Set(slots.map((s) => s.slot))];
  const bySlot = new Map<string, string[]>();
  for (const f of fixtures) {
    const s = slotOfFixture(f, slotNames);
    if (s) bySlot.set(s, [...(bySlot.get(s) ?? []), f]);
  }
  const problems: string[] = [];
  let runs = 0;
  let handedOver = 0;
  const seen = new Set<string>();
  for (const s of slots) {
    const key = `${s.slot}\u0000${s.source}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const tr = compileTransform(s.source, 1000);
    if (!tr.compiled) { problems.push(`${s.at}: not compiled (${tr.fallbackReason})`); continue; }
    for (const f of bySlot.get(s.slot) ?? []) {
      const fx = JSON.parse(readFileSync(f, 'utf8'));
      const r = await compare(tr, fx.input, engineBindings(fx.bindings));
      runs++;
      if (r.handedOver) handedOver++;
      if (r.diff) problems.push(`${s.at} on ${relative(projectRoot, f)}: ${r.diff}`);
    }
  }

  // Dialects live in dialects/<name>.yaml (routes.yaml may still hold inline ones).
  const dialectFiles = Object.fromEntries(readdirSync(join(projectRoot, 'dialects')).filter((f) => f.endsWith('.yaml'))
    .map((f) => [f.replace(/\.yaml$/, ''), yamlOf(`dialects/${f}`)]));
  const dialects = compileDialects({ ...dialectFiles, ...(yamlOf('routes.yaml').dialects ?? {}) } as Record<string, Dialect>, 1000);
  assert.ok(dialects.size >= 2, 'the shipped dialects were found');
  for (const [name, d] of dialects) {
    const at: Record<string, Transform | CompiledStream | undefined> = {
      'client.request': d.client?.request, 'client.response': d.client?.response, 'client.stream': d.client?.stream,
      'client.conversation': d.client?.conversation, 'vendor.request': d.vendor?.request, 'vendor.response': d.vendor?.response,
      'vendor.stream': d.vendor?.stream, error: d.error,
    };
    for (const f of filesUnder(join(goldenDir, 'dialects', name))) {
      const slot = slotOfFixture(f, [...dialectSlots]);
      const tr = slot ? at[slot] : undefined;
      if (!tr) continue;
      const fx = JSON.parse(readFileSync(f, 'utf8'));
      runs++;
      if ('event' in tr) {
        const diff = await compareStream(tr, { ...fx, bindings: engineBindings(fx.bindings) });
        if (diff) problems.push(`dialects.${name}.${slot} on ${relative(projectRoot, f)}: ${diff}`);
        continue;
      }
      if (!tr.compiled) { problems.push(`dialects.${name}.${slot}: not compiled (${tr.fallbackReason})`); continue; }
      const r = await compare(tr, fx.input, engineBindings(fx.bindings));
      if (r.handedOver) handedOver++;
      if (r.diff) problems.push(`dialects.${name}.${slot} on ${relative(projectRoot, f)}: ${r.diff}`);
    }
  }
  t.diagnostic(`${seen.size} distinct slots, ${runs} evaluations compared, ${handedOver} handed over to jsonata (a function answered a promise)`);
  assert.ok(runs > 200, `only ${runs} evaluations compared: fixtures not found?`);
  assert.deepEqual(problems, []);
});
