// The request bodies a coding agent sent, kept as golden fixtures (test/golden/agents/<agent>/<case>.json) of the
// gateway's translations. Normalised first, so that a run's own values (session, item and call ids, uuids, temp
// paths, the date, the key) and long prose (system prompts, tool descriptions: cut to their first line) do not make
// every run differ; then compared by a pin (what must not change: by default the whole normalised value; usually its
// shape: fields, tools, turns and their parts). SWITCHYARD_UPDATE_GOLDEN=1 rewrites a fixture; a missing one is
// written only outside CI: with CI set it fails, so a fixture nobody committed cannot pass unseen.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/load-config.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Strings longer than this (or of several lines and longer than a line) are cut to their first line. */
const PROSE = 160;
/** Keys whose values are ids made per run: aliased in order of appearance, so links (call → result) stay visible. */
const ID_KEYS = new Set(['id', 'call_id', 'tool_call_id', 'tool_use_id', 'previous_response_id']);
/** Keys whose whole value is per run or per machine (`user`: a chat body's end-user id, e.g. Claude Code's device). */
const VOLATILE_KEYS = new Set(['prompt_cache_key', 'encrypted_content', 'client_metadata', 'signature', 'thoughtSignature', 'user_id', 'user']);
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*';
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*';
const DATES = [/\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z?)?/g, new RegExp(`${DAY},? ${MONTH} \\d{1,2},? \\d{4}`, 'g')];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Ids vendors and the simulator make, found inside strings too (e.g. a call id quoted in a tool's output). */
const INLINE_IDS = /\b(?:call|toolu|msg|resp|fc|rs)_[A-Za-z0-9]{8,}\b/g;

export interface NormaliseOptions {
  /** Exact strings to replace (a work dir, HOME, an install dir, the key), longest first is safest. */
  places?: [string, string][];
}

/** The value with volatile values replaced and long prose cut to its first line. */
export function normalise(value: unknown, opts: NormaliseOptions = {}): Json {
  const ids = new Map<string, string>();
  const alias = (v: string) => {
    if (!ids.has(v)) ids.set(v, `<id${ids.size + 1}>`);
    return ids.get(v)!;
  };
  const places = [...(opts.places ?? []), [tmpdir(), '<tmp>'] as [string, string]].filter(([from]) => from);
  const text = (s: string): string => {
    let t = s;
    for (const [from, to] of places) t = t.split(from).join(to);
    for (const re of DATES) t = t.replace(re, '<date>');
    t = t.replace(UUID, '<uuid>').replace(INLINE_IDS, (m) => alias(m));
    if (t.length <= PROSE) return t;
    const first = t.split('\n')[0];
    return `${first.length > PROSE ? first.slice(0, PROSE) : first} …`;
  };
  const walk = (v: unknown, key?: string): Json => {
    if (key && VOLATILE_KEYS.has(key)) return `<${key}>`;
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    if (typeof v !== 'string') return v as Json;
    return key && ID_KEYS.has(key) ? alias(v) : text(v);
  };
  return walk(value);
}

/** A Messages request's shape: its fields, system block types, tool names, each message's role and block types. */
export function messagesShape(b: any): unknown {
  return {
    fields: Object.keys(b).sort(),
    system: Array.isArray(b.system) ? b.system.map((s: any) => s.type) : typeof b.system,
    tools: (b.tools ?? []).map((t: any) => t.name).sort(),
    messages: (b.messages ?? []).map((m: any) => `${m.role}: ${typeof m.content === 'string' ? 'text' : m.content.map((c: any) => c.type).join(', ')}`),
  };
}

/** A chat completions request's shape: its fields, tool types and names, each message's role and what it carries. */
export function chatShape(b: any): unknown {
  return {
    fields: Object.keys(b).sort(),
    tools: (b.tools ?? []).map((t: any) => `${t.type}:${t.function?.name}`).sort(),
    messages: (b.messages ?? []).map((m: any) => [m.role, typeof m.content, ...(m.tool_calls ? ['tool_calls'] : []), ...(m.tool_call_id ? ['tool_call_id'] : [])].join(' ')),
  };
}

export const fixturePath = (agent: string, name: string) => join(projectRoot, 'test', 'golden', 'agents', agent, `${name}.json`);

/**
 * Compares `value` (already normalised) with test/golden/agents/<agent>/<name>.json through `pin`, applied to each
 * element when the value is a list of requests. Writes the fixture with SWITCHYARD_UPDATE_GOLDEN=1, or when it is
 * missing outside CI; a missing fixture under CI fails.
 */
export function keepGolden(agent: string, name: string, value: Json, pin: (v: any) => unknown = (v) => v): void {
  const file = fixturePath(agent, name);
  const update = process.env.SWITCHYARD_UPDATE_GOLDEN === '1';
  if (!update && !existsSync(file)) {
    assert.ok(!process.env.CI, `golden fixture test/golden/agents/${agent}/${name}.json is missing (run the test once outside CI, or with SWITCHYARD_UPDATE_GOLDEN=1, and commit it)`);
  }
  if (update || !existsSync(file)) {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  }
  const kept = JSON.parse(readFileSync(file, 'utf8'));
  const all = (v: unknown) => (Array.isArray(v) ? v : [v]);
  assert.deepEqual(all(value).map(pin), all(kept).map(pin), `${agent} sent requests that differ from test/golden/agents/${agent}/${name}.json (SWITCHYARD_UPDATE_GOLDEN=1 rewrites it)`);
}
