// The request bodies an agent sent, kept as golden fixtures (test/golden/agents/<agent>/<case>.json): normalised so
// that a run's own values (session and call ids, temp paths, the date) and long prose (instructions, tool
// descriptions) do not make every run differ. A fixture is written when missing or with SWITCHYARD_UPDATE_GOLDEN=1;
// otherwise the body's shape (fields, tools, item types) must match it: a new agent version that sends something
// new fails here first.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/load-config.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const PROSE = 240;

/** The body with volatile values replaced and long strings cut. */
export function goldenBody(body: unknown): Json {
  const ids = new Map<string, string>();
  const alias = (v: string, prefix: string) => {
    if (!ids.has(v)) ids.set(v, `${prefix}${ids.size + 1}`);
    return ids.get(v)!;
  };
  const walk = (v: unknown, key?: string): Json => {
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'client_metadata' ? '<client metadata>' : walk(x, k)]));
    }
    if (typeof v !== 'string') return v as Json;
    if (key === 'id' || key === 'call_id') return alias(v, key === 'id' ? 'item_' : 'call_');
    if (key === 'prompt_cache_key') return '<session>';
    if (key === 'encrypted_content') return '<encrypted>';
    const plain = v.replace(/\/tmp\/[\w.-]+(\/[\w.-]+)*/g, '<dir>').replace(/\d{4}-\d{2}-\d{2}/g, '<date>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>');
    return plain.length > PROSE ? `${plain.slice(0, PROSE)}…` : plain;
  };
  return walk(body);
}

/** What must not change between runs: the fields, the tools (type and name), the input items (type and role). */
function shape(b: any): unknown {
  const tool = (t: any): unknown => [t.type, t.name, ...(t.tools ? [t.tools.map(tool)] : [])];
  return { fields: Object.keys(b).sort(), tools: (b.tools ?? []).map(tool), input: (b.input ?? []).map((i: any) => [i.type, i.role]) };
}

export function keepGolden(agent: string, name: string, body: Json): void {
  const dir = join(projectRoot, 'test', 'golden', 'agents', agent);
  const file = join(dir, `${name}.json`);
  if (process.env.SWITCHYARD_UPDATE_GOLDEN === '1' || !existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
    return;
  }
  assert.deepEqual(shape(body), shape(JSON.parse(readFileSync(file, 'utf8'))), `${agent} sent a body of another shape than ${file} (SWITCHYARD_UPDATE_GOLDEN=1 rewrites it)`);
}
