// Graceful stop and live config reload: nothing in flight is dropped, a broken config never replaces a working one.
import type { Server } from 'node:http';
import type { Gateway } from './gateway.js';
import { loadRuntime } from './config/load-config.js';
import { ConfigError, formatDiagnostic } from './config/diagnostics.js';

/** Stops accepting, waits for in-flight requests (streams included) up to the deadline, then cuts the rest. */
export async function drain(server: Server, g: Gateway, deadlineMs: number): Promise<{ drained: boolean; cut: number }> {
  server.close();
  server.closeIdleConnections();
  const until = Date.now() + deadlineMs;
  while (g.inflight > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    server.closeIdleConnections();
  }
  const cut = g.inflight;
  server.closeAllConnections();
  // Cut requests still settle (their handlers see the close): give them a moment to write the ledger.
  const settleUntil = Date.now() + 2000;
  while (g.inflight > 0 && Date.now() < settleUntil) await new Promise((r) => setTimeout(r, 10));
  return { drained: cut === 0, cut };
}

export function reloadConfig(g: Gateway, configDir: string | undefined, env: NodeJS.ProcessEnv): { ok: boolean; hash: string; errors?: string } {
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
