// Graceful stop and live config reload: nothing in flight is dropped, a broken config never replaces a working one.
import type { Server } from 'node:http';
import type { RunningGateway } from './gateway.js';
import { loadRuntime } from './config/load-config.js';
import { ConfigError, formatDiagnostic } from './config/diagnostics.js';

/**
 * Stops accepting, waits for in-flight requests (streams and downloads included) up to the deadline, then cuts the
 * rest: each request's abort fires, so a stream ends with a final error event and `[DONE]`, a request still waiting
 * gets a 503, and every cut request refunds or settles before the connections close. Returns within the deadline
 * plus half a second, whatever the upstreams do.
 */
export async function drain(server: Server, g: RunningGateway, deadlineMs: number): Promise<{ drained: boolean; cut: number }> {
  server.close();
  server.closeIdleConnections();
  const until = Date.now() + deadlineMs;
  while (g.active.size > 0 && Date.now() < until) {
    await sleep(25);
    server.closeIdleConnections();
  }
  const cut = g.active.size;
  for (const ctx of g.active) ctx.abort.abort('shutdown');
  const settleUntil = Date.now() + 500;
  while (g.active.size > 0 && Date.now() < settleUntil) await sleep(10);
  server.closeAllConnections();
  return { drained: cut === 0, cut };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function reloadConfig(g: RunningGateway, configDir: string | undefined, env: NodeJS.ProcessEnv): { ok: boolean; hash: string; errors?: string } {
  try {
    const { runtime, warnings } = loadRuntime(configDir, env);
    for (const w of warnings) g.log.warn(formatDiagnostic(w));
    if (runtime.hash !== g.runtime.hash) g.swap(runtime);
    g.log.info({ config: runtime.hash }, 'config reloaded');
    return { ok: true, hash: runtime.hash };
  } catch (err) {
    const errors = err instanceof ConfigError ? err.message : (err as Error).message;
    g.log.error({ config: g.runtime.hash, errors }, 'config reload refused; the running config is kept');
    return { ok: false, hash: g.runtime.hash, errors };
  }
}
