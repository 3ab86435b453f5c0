// The documentation as data: which Markdown files are the docs, the fenced code blocks in them with what their info
// string says to do with each (run it, validate it, or why it cannot run here), and their headings and links.
// docs/contributors/testing.md#every-example-is-executed explains the markers to writers.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/load-config.js';

/**
 * What a block is for, from its info string (` ```sh run`, ` ```yaml schema=channels#/definitions/Channel`):
 * - run: executed in order, in one bash session per page, against the demo (a `js` block is written to a file and run with node);
 * - schema: a config snippet, validated against schemas/config/<file>.schema.json at the JSON pointer;
 * - by: settings a test file reads from this page and runs (test/<by>.test.ts names the block's `id`);
 * - norun: cannot run here, with the reason (one of `reasons`);
 * - output: what a command prints or a file holds (not an example to run);
 * - plain: no code (`text`, `mermaid`, no language).
 */
export type Kind = 'run' | 'schema' | 'by' | 'norun' | 'output' | 'plain';

export interface Block {
  file: string; // relative to the project root
  line: number; // of the opening fence, 1-based
  lang: string;
  kind: Kind;
  arg?: string; // the schema, the test or the reason
  id?: string;
  /** With `schema`: the block is a list of examples, each validated on its own. */
  each?: boolean;
  text: string;
}

/** Why a block cannot run in the doc test; the page says so in its text too. */
export const reasons: Record<string, string> = {
  docker: 'needs a Docker daemon',
  'real-keys': 'calls real vendors with real keys',
  server: 'starts a long-running gateway or simulator in the foreground; the doc test starts the demo itself',
  external: 'needs a service at an address of its own (a PostgreSQL, a collector, a Redis server elsewhere)',
  suite: 'runs the test suite or the benchmark, which take minutes; CI runs `npm test`',
  fragment: 'a fragment of test code, shown for the calls it makes; it needs a test around it',
};

/** Languages that are code: a block in one of them must say what it is for. */
const codeLangs = new Set(['sh', 'bash', 'shell', 'console', 'yaml', 'yml', 'json', 'jsonc', 'toml', 'js', 'mjs', 'ts', 'javascript', 'typescript', 'ini', 'dotenv']);

/** Every documentation page: the README, docs/, and the simulator's and the bench's READMEs. */
export function docFiles(): string[] {
  const out = ['README.md', 'simulator/README.md', 'bench/README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(projectRoot, dir)).sort()) {
      const rel = `${dir}/${name}`;
      if (statSync(join(projectRoot, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

export const readDoc = (file: string) => readFileSync(join(projectRoot, file), 'utf8');

/** The fenced blocks of a page, in order. */
export function blocksOf(file: string, source = readDoc(file)): Block[] {
  const lines = source.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).exec(lines[j]);
      if (close) break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    blocks.push({ file, line: i + 1, ...parseInfo(info.trim()), text: body.join('\n') + '\n' });
    i = j;
  }
  return blocks;
}

function parseInfo(info: string): Pick<Block, 'lang' | 'kind' | 'arg' | 'id' | 'each'> {
  const [lang = '', ...words] = info.split(/\s+/).filter(Boolean);
  const attrs = Object.fromEntries(words.map((w) => { const [k, ...v] = w.split('='); return [k, v.join('=')]; }));
  const id = attrs.id || undefined;
  const each = 'each' in attrs || undefined;
  for (const kind of ['run', 'schema', 'by', 'norun', 'output'] as const) {
    if (kind in attrs) return { lang, kind, arg: attrs[kind] || undefined, id, each };
  }
  return { lang, kind: 'plain', id };
}

/** Why a block breaks the rules, if it does: code without a marker, an unknown reason, a run block in a language we cannot run. */
export function problemOf(b: Block): string | undefined {
  const where = `${b.file}:${b.line}`;
  if (b.kind === 'plain' && codeLangs.has(b.lang)) return `${where}: a \`${b.lang}\` block says neither run, schema=, by=, norun= nor output`;
  if (b.kind === 'norun' && !(b.arg && b.arg in reasons)) return `${where}: norun=${b.arg ?? ''} is not one of ${Object.keys(reasons).join(', ')}`;
  if (b.kind === 'run' && !['sh', 'bash', 'js', 'mjs'].includes(b.lang)) return `${where}: only sh and js blocks run`;
  if ((b.kind === 'schema' || b.kind === 'by') && !b.arg) return `${where}: ${b.kind}= needs a value`;
  if (b.kind === 'by' && !b.id) return `${where}: a by= block needs an id= the test names`;
  return undefined;
}

/** The one block of a page with this id (the settings an agent test reads from its recipe). */
export function docBlock(file: string, id: string): string {
  const found = blocksOf(file).filter((b) => b.id === id);
  if (found.length !== 1) throw new Error(`${file}: ${found.length} blocks with id=${id}`);
  return found[0].text;
}
