// Boots a gateway: config, store, server; used by `npm start`, `switchyard start` and the tests.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadRuntime } from './config/load-config.js';
import { formatDiagnostic } from './config/diagnostics.js';
import { defaultStoreUri, openStore, type Store } from './store/open-store.js';
import { logSettings } from './request-log/log-settings.js';
import { openRequestLog } from './request-log/open-request-log.js';
import { retentionLoop } from './retention.js';
import { RunningGateway } from './gateway.js';
import type { ReloadResult } from './pipeline/gateway.js';
import { createGatewayServer } from './server.js';
import { readTls, tlsFiles } from './http/tls-settings.js';
import type { Server as TlsServer } from 'node:https';
import { createLogging, type Destination } from './log.js';
import { TaskPoller } from './tasks/poller.js';
import { sweep } from './tasks/recovery.js';
import { upgradeTokens } from './accounts/upgrade-tokens.js';
import { BackgroundLoop } from './tasks/background-loop.js';
import { drain, reloadConfig } from './lifecycle.js';
import { Redactor } from './redaction/redactor.js';
import { mintedSecrets } from './transport/auth/index.js';
import { loadTracing } from './tracing/load-tracing.js';

export interface StartOptions {
  port?: number; host?: string; configDir?: string; storeUri?: string; env?: NodeJS.ProcessEnv;
  /** Where log lines go (default: standard output, or SWITCHYARD_LOG_FILE) and from which level (default LOG_LEVEL or info). */
  logDestination?: Destination; logLevel?: string;
  /** Background work (task polls, recovery sweeps, callbacks); tests turn it off to drive passes themselves. */
  poller?: boolean;
}
export interface Running {
  gateway: RunningGateway; server: Server; url: string; port: number; store: Store; poller: TaskPoller; recovery: BackgroundLoop;
  /** Stops at once (tests). */
  close(): Promise<void>;
  /** Stops accepting, lets in-flight requests finish up to `deadlineMs`, then stops the poller and closes the store. */
  shutdown(deadlineMs: number): Promise<{ drained: boolean; cut: number }>;
  /** Loads the config again and swaps it in; a broken config is refused and the running one kept. */
  reload(): ReloadResult;
}

export async function startGateway(opts: StartOptions = {}): Promise<Running> {
  const redactor = new Redactor(mintedSecrets);
  const logging = createLogging(redactor, opts.logDestination, opts.logLevel);
  const log = logging.log;
  const { runtime, warnings } = loadRuntime(opts.configDir, opts.env ?? process.env);
  for (const w of warnings) log.warn(formatDiagnostic(w));
  const tracing = await loadTracing(opts.env ?? process.env, log); // the SDK is loaded only when an endpoint is set
  const env = opts.env ?? process.env;
  const storeUri = opts.storeUri || env.SWITCHYARD_STORE || defaultStoreUri;
  // A closed request's idempotency markers outlive any repeat of its close: the longest a request or a task may run, and a margin.
  const markerTtlMs = { request: runtime.server.request_timeout_ms + 600_000, durable: (runtime.longestTaskAgeS + 86_400) * 1000 };
  const store = await openStore(storeUri, { onError: (msg, err) => log.error({ err }, msg), markerTtlMs });
  const logSet = logSettings(env, storeUri);
  const requestLog = logSet && await openRequestLog(logSet, log);
  const gateway = new RunningGateway(runtime, store, logging, redactor, requestLog);
  gateway.tracing = tracing;
  gateway.reload = () => reloadConfig(gateway, opts.configDir, opts.env ?? process.env);
  const upgraded = await upgradeTokens(store, gateway.tokens, gateway.accounts);
  if (upgraded.tokens || upgraded.moved) log.info({ ...upgraded }, 'tokens of an earlier release now belong to users; their balances are in the users\' wallets');
  const tls = tlsFiles(env);
  const server = createGatewayServer(gateway, tls && readTls(tls));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  gateway.breakers.startSync(() => gateway.runtime.channels.map((c) => c.id));
  const poller = new TaskPoller(gateway);
  const recovery = new BackgroundLoop('recovery sweep', log, () => gateway.runtime.tasks.sweep_interval_ms, () => sweep(gateway));
  const retention = opts.poller !== false ? retentionLoop(store, log, requestLog && { log: requestLog, settings: logSet! }) : undefined;
  if (opts.poller !== false) {
    poller.start();
    recovery.start();
    gateway.callbacks.start();
    gateway.alerts.start();
  }
  const background = async (waitMs: number) => {
    await Promise.all([poller.stop(waitMs), recovery.stop(waitMs), gateway.callbacks.stop(waitMs), gateway.alerts.stop(waitMs), retention?.stop(waitMs)]);
    gateway.breakers.stop();
  };
  const port = (server.address() as AddressInfo).port;
  const url = `${tls ? 'https' : 'http'}://${opts.host ?? '127.0.0.1'}:${port}`;
  log.info({ url, config: runtime.hash, store: store.describe }, 'switchyard listening');
  return {
    gateway, server, url, port, store, poller, recovery,
    async close() {
      server.close();
      server.closeAllConnections();
      await endDetached(gateway, 1000);
      await background(1000);
      await Promise.all([returnLeases(gateway), tracing?.shutdown(1000), requestLog?.close(1000)]);
      await store.close();
      await logging.flush(1000);
    },
    async shutdown(deadlineMs) {
      const result = await drain(server, gateway, deadlineMs);
      await background(200); // a poll hung on a vendor is abandoned: its lease lets another instance retry it
      await new Promise((r) => setImmediate(r)); // let batched ledger writes of the last requests commit
      // The last spans are exported meanwhile, or given up on: both within the stop's bound (500 ms each at most).
      // The request log writes what it can meanwhile; the rest waits in its spool for the next start.
      await Promise.all([returnLeases(gateway), tracing?.shutdown(500), requestLog?.close(500)]);
      await store.close();
      log.info({ ...result }, 'switchyard stopped');
      await logging.flush(200);
      return result;
    },
    reload() {
      const result = gateway.reload();
      if (tls) renewTls(server as TlsServer, tls, log);
      return result;
    },
  };
}

/**
 * Requests whose socket left the HTTP server (realtime sessions) outlive closeAllConnections: each is told the gateway
 * stops, and its money settled, before the store closes.
 */
async function endDetached(g: RunningGateway, ms: number): Promise<void> {
  for (const ctx of g.active) ctx.abort.abort('shutdown');
  const until = Date.now() + ms;
  while (g.active.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
}

/** Unused rate-limit leases go back and billed tokens are counted before the store closes; a store that does not answer is not waited for. */
async function returnLeases(g: RunningGateway): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([g.limiter.close(), new Promise((r) => { timer = setTimeout(r, 500); })]);
  clearTimeout(timer);
}

/** A renewed certificate is served to new connections; one that cannot be read leaves the running one in place. */
function renewTls(server: TlsServer, files: NonNullable<ReturnType<typeof tlsFiles>>, log: RunningGateway['log']): void {
  try {
    server.setSecureContext(readTls(files));
  } catch (err) {
    log.error({ err: (err as Error).message }, 'TLS certificate not reloaded; the running one is kept');
  }
}
