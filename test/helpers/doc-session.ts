// A page's runnable blocks as a reader runs them: in order, in one bash session (variables and background processes
// carry from block to block), in a directory that looks like the checkout (its files linked, its data/ its own), with
// the demo's ports put in place of 3000 and 4010, a key as the quick start makes one in $KEY and the admin key in
// admin.key.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/load-config.js';
import type { Block } from './doc-blocks.js';
import type { Demo } from './demo.js';
import { serverPort } from './ports.js';

export interface SessionResult { ok: boolean; output: string; failedAt?: string; ms: number }

/** What the checkout holds that a session must not share: its own store, the repository, scratch files. */
const notLinked = new Set(['data', '.git', '.scratch', 'test', 'admin.key']);

// Fails a curl on an HTTP error (as a reader would notice one), unless the block already chose how (-f, --fail) or
// reads the status itself (-w '%{http_code}', -D for the headers).
const prelude = String.raw`
set -eEuo pipefail
curl() {
  local a
  for a in "$@"; do
    case "$a" in
      --fail|--fail-with-body|--fail-early|--write-out|--dump-header) command curl "$@"; return ;; # the block reads the status itself
      --*) ;;
      -*f*|-*w*|-*D*) command curl "$@"; return ;; # short options with -f (-f, -sf, -fsS), -w or -D (the status read)
    esac
  done
  command curl --fail-with-body --show-error --no-progress-meter "$@"
}
trap 'echo "::failed:: $__block (exit $?)" >&2' ERR
`;

/**
 * A fresh key for a page, the token the quick start's `token create --group default --quota 1000000` makes, made
 * through the demo's admin API (the same TokenAdmin as the CLI): the CLI loads the whole config in a process of its
 * own, about a second a page.
 */
async function pageKey(demo: Demo): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${demo.port}/admin/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${demo.env.SWITCHYARD_ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ group: 'default', quota: 1_000_000 }),
  });
  const body = await res.text();
  const key = res.status === 201 ? (JSON.parse(body) as { key?: unknown }).key : undefined;
  if (typeof key !== 'string' || !/^[\w-]+$/.test(key)) throw new Error(`the demo made no token: HTTP ${res.status} ${body.slice(0, 300)}`);
  return key;
}

/** The ports a block names, moved to free ones: the demo's own for 3000 and 4010, fresh ones for 3001-3009 and 7000-7009. */
export async function portMap(demo: Demo): Promise<Map<string, string>> {
  const map = new Map([['3000', String(demo.port)], ['4010', String(demo.simPort)]]);
  for (let i = 1; i <= 9; i++) map.set(`300${i}`, String(await serverPort()));
  for (let i = 0; i <= 9; i++) map.set(`700${i}`, String(await serverPort()));
  return map;
}

export const withPorts = (text: string, ports: Map<string, string>) =>
  text.replace(/(?<![\w.])(300\d|4010|700\d)(?![\w.])/g, (p) => ports.get(p) ?? p);

/** A fresh directory with the checkout's files linked in, and the admin key where the console page puts it. */
function sessionDir(demo: Demo): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-doc-session-'));
  for (const name of readdirSync(projectRoot)) {
    if (!notLinked.has(name)) symlinkSync(join(projectRoot, name), join(dir, name));
  }
  writeFileSync(join(dir, 'admin.key'), `${demo.env.SWITCHYARD_ADMIN_KEY}\n`);
  return dir;
}

export async function runSession(blocks: Block[], demo: Demo, timeoutMs = 240_000): Promise<SessionResult> {
  const dir = sessionDir(demo);
  const ports = await portMap(demo);
  const parts = [prelude, `KEY='${await pageKey(demo)}'`];
  for (const b of blocks) {
    const at = `${b.file}:${b.line}`;
    parts.push(`__block='${at}'`, `echo "::block:: ${at}" >&2`);
    const text = withPorts(b.text, ports);
    if (b.lang === 'js' || b.lang === 'mjs') {
      const file = `block-${b.line}.mjs`;
      writeFileSync(join(dir, file), text);
      parts.push(`node ${file}`);
    } else {
      parts.push(text);
    }
  }
  parts.push('echo "::done::" >&2');
  const script = join(dir, 'session.sh');
  writeFileSync(script, parts.join('\n'));
  const started = Date.now();
  const output = await run(script, dir, demo, timeoutMs);
  const failed = /::failed:: (\S+)/.exec(output)?.[1];
  const ok = !failed && output.includes('::done::');
  const lastBlock = [...output.matchAll(/::block:: (\S+)/g)].at(-1)?.[1];
  // A failed session's directory stays, with session.sh and session.log; SWITCHYARD_DOC_KEEP=1 keeps every one.
  if (ok && !process.env.SWITCHYARD_DOC_KEEP) rmSync(dir, { recursive: true, force: true });
  return { ok, output, failedAt: ok ? undefined : failed ?? lastBlock, ms: Date.now() - started };
}

/** Runs the script in its own process group, and ends the group (background servers a block left) when it ends. */
function run(script: string, cwd: string, demo: Demo, timeoutMs: number): Promise<string> {
  const log = join(cwd, 'session.log');
  return new Promise((resolve) => {
    const child = spawn('bash', [script], {
      cwd, detached: true,
      env: { ...process.env, ...demo.env, SWITCHYARD_ADMIN_KEY: '', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => { out += d; });
    child.stderr!.on('data', (d) => { out += d; });
    const timer = setTimeout(() => { out += `\n::failed:: timeout after ${timeoutMs} ms\n`; kill(child.pid!); }, timeoutMs);
    child.on('close', () => {
      clearTimeout(timer);
      kill(child.pid!);
      writeFileSync(log, out);
      resolve(out);
    });
  });
}

function kill(pgid: number): void {
  try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ }
}

/** The tail of a session's output, for an assertion message. */
export const tail = (output: string, chars = 4000) => output.slice(-chars);

export const readLog = (path: string) => { try { return readFileSync(path, 'utf8'); } catch { return ''; } };
