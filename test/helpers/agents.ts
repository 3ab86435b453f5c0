// Coding agents as their users run them: each installed from npm at a pinned version by the test that drives it
// (never a dependency of the gateway), with a HOME of its own, pointed at the gateway through the settings its docs
// give, and a capture in front of the gateway that keeps every request body the agent sent.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { startStack, type Stack, type StackOptions } from './stack.js';

export interface AgentPackage {
  /** The npm package and the version the tests pin (the table names them). */
  name: string;
  version: string;
  /** The command in node_modules/.bin. */
  bin: string;
}

export const agents = {
  claude: { name: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  codex: { name: '@openai/codex', version: '0.169.0', bin: 'codex' },
  gemini: { name: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  opencode: { name: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
} satisfies Record<string, AgentPackage>;

/** Where installs are kept between test files of one run (and between local runs): the OS temp dir. */
const cacheRoot = process.env.SWITCHYARD_AGENT_CACHE ?? join(tmpdir(), 'switchyard-agents');

/**
 * The agent's executable, installed on first use with `npm install` into a directory of its own. Returns undefined
 * with the reason when the install fails (no registry): the caller skips, or fails in CI.
 */
export function installAgent(p: AgentPackage): { bin?: string; problem?: string } {
  const name = `${p.name.replace(/[@/]/g, '_')}-${p.version}`;
  const dir = join(cacheRoot, name);
  const bin = join(dir, 'node_modules', '.bin', p.bin);
  if (existsSync(bin)) return { bin };
  mkdirSync(cacheRoot, { recursive: true });
  // Installed beside its place and moved in whole: whoever finds the directory finds a finished install, and two runs
  // installing at once (two checkouts' suites on one machine) never write into one directory.
  const fresh = mkdtempSync(join(cacheRoot, `.${name}-`));
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', fresh, `${p.name}@${p.version}`], {
    encoding: 'utf8', timeout: 300_000,
  });
  if (r.status !== 0 || !existsSync(join(fresh, 'node_modules', '.bin', p.bin))) {
    rmSync(fresh, { recursive: true, force: true });
    return { problem: `npm install ${p.name}@${p.version} failed: ${(r.stderr || r.error?.message || '').slice(-400)}` };
  }
  if (!existsSync(bin)) rmSync(dir, { recursive: true, force: true }); // an install an older helper left half done
  try {
    renameSync(fresh, dir);
  } catch {
    rmSync(fresh, { recursive: true, force: true }); // another run moved its install in first: that one serves
  }
  return existsSync(bin) ? { bin } : { problem: `${p.name}@${p.version}: no ${p.bin} in ${dir} after the install` };
}

export interface AgentRun { code: number | null; stdout: string; stderr: string; timedOut: boolean }

/** Runs the agent once with a fresh HOME (or the one given), in an empty working directory; killed at the timeout. */
export function runAgent(bin: string, args: string[], opts: { env?: Record<string, string>; home?: string; cwd?: string; timeoutMs?: number } = {}): Promise<AgentRun> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'switchyard-agent-home-'));
  const cwd = opts.cwd ?? mkdtempSync(join(tmpdir(), 'switchyard-agent-work-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'), TERM: 'dumb', NO_COLOR: '1', CI: '1', ...opts.env,
  };
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, opts.timeoutMs ?? 120_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr, timedOut }); });
  });
}

export interface Captured { method: string; path: string; headers: IncomingHttpHeaders; body: string; status?: number }

export interface Capture { url: string; requests: Captured[]; close(): Promise<void> }

/**
 * A pass-through in front of the gateway that keeps what the agent sent (method, path, headers, body) and the status
 * it got, so a test can assert on the agent's own requests and keep them as golden fixtures. Bodies are streamed on
 * to the gateway unchanged; answers (streams included) are piped back as they come.
 */
export async function captureFront(target: string): Promise<Capture> {
  const requests: Captured[] = [];
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry: Captured = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: body.toString('utf8') };
      requests.push(entry);
      const up = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (answer) => {
        entry.status = answer.statusCode;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((r) => { server.close(() => r()); server.closeAllConnections(); }),
  };
}

/** Why an agent's tests skip: only outside CI, when its install failed (in CI they run and fail instead). */
export function skipUnlessInstalled(install: { bin?: string; problem?: string }, name: string): string | false {
  return install.bin || process.env.CI ? false : `${name} could not be installed: ${install.problem}`;
}

export interface AgentStack { stack: Stack; front: Capture; key: string }

/** What every agent test runs against: the gateway with its simulator, a capture in front, a token with quota. */
export async function agentStack(install: { bin?: string; problem?: string }, options?: StackOptions): Promise<AgentStack> {
  assert.ok(install.bin, install.problem);
  const stack = await startStack(options);
  const front = await captureFront(stack.url);
  const { key } = await stack.token({ quota: 10_000_000 });
  return { stack, front, key };
}
