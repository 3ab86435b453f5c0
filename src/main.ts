// `npm start`: the gateway on PORT (default 3000); with --with-simulator, the bundled vendor simulator beside it.
// SWITCHYARD_WORKERS=N (or `auto`: one per core) runs N workers (node:cluster) on the same port and store.
import './heap-growth.js'; // first: V8's heap headroom before anything is allocated
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { watch } from 'node:fs';
import { startGateway, type Running } from './start.js';
import { ConfigError } from './config/diagnostics.js';
import { defaultConfigDir } from './config/load-config.js';
import { configFile } from './config/config-files.js';
import { vendorDirs } from './config/vendor-files.js';

const drainMs = Number(process.env.SWITCHYARD_DRAIN_MS ?? 30_000);

async function main(): Promise<void> {
  if (cluster.isPrimary && process.argv.includes('--with-simulator')) await startSimulator();
  const workers = process.env.SWITCHYARD_WORKERS === 'auto' ? availableParallelism() : Number(process.env.SWITCHYARD_WORKERS ?? 1);
  if (cluster.isPrimary && workers > 1) return primary(workers);
  const running = await startGateway({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
  onSignals(running); // before the announcement: a supervisor may signal as soon as it reads it
  console.error(`switchyard on ${running.url}${cluster.isWorker ? ` (worker ${process.pid})` : ''}`);
}

async function startSimulator(): Promise<void> {
  // Loaded only here so production starts never touch simulator code.
  const { startSimulator } = await import('../simulator/server.js');
  const sim = await startSimulator({ port: Number(process.env.SIM_PORT ?? 4010), host: '127.0.0.1' });
  process.env.SWITCHYARD_SIM_URL ??= sim.url;
  console.error(`vendor simulator on ${sim.url} (channels.yaml points the sim_* channels here)`);
}

function onSignals(running: Running): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // The stop's own bound: whatever hangs (a vendor, the store, the log), the process is gone a second after the drain.
    setTimeout(() => { console.error('stop overran its deadline; exiting'); process.exit(1); }, drainMs + 1000).unref();
    void running.shutdown(drainMs).then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.on('SIGHUP', () => running.reload());
  if (process.env.SWITCHYARD_WATCH_CONFIG !== '0') watchConfig(() => running.reload());
}

/** Reloads on file changes too (the two files and the vendor directories), debounced: editors write files in several steps. */
function watchConfig(reload: () => void): void {
  let timer: NodeJS.Timeout | undefined;
  const dir = defaultConfigDir();
  for (const path of [configFile(dir, 'routes.yaml'), configFile(dir, 'channels.yaml'), ...vendorDirs(dir)]) {
    try {
      watch(path, () => { clearTimeout(timer); timer = setTimeout(reload, 300); }).unref();
    } catch { /* a missing file was already reported by the config check; a config without vendors/ has none */ }
  }
}

/** Crashes within a minute after which the primary gives up rather than restart workers in a loop. */
const maxCrashesPerMinute = 5;

function primary(workers: number): void {
  for (let i = 0; i < workers; i++) cluster.fork();
  let started = false;
  let crashes: number[] = [];
  cluster.once('listening', () => { started = true; });
  cluster.on('exit', (w, code) => {
    if (stopping || code === 0) return;
    crashes = [...crashes.filter((t) => t > Date.now() - 60_000), Date.now()];
    // A worker that dies before any has listened (a bad config, a port taken) would die again: the start fails.
    if (!started || crashes.length > maxCrashesPerMinute) {
      console.error(`worker ${w.process.pid} exited (${code}) ${started ? `${crashes.length} times in a minute` : 'before the gateway started'}; stopping`);
      stop('SIGTERM', 1);
      return;
    }
    console.error(`worker ${w.process.pid} exited (${code}); starting another`);
    cluster.fork();
  });
  let stopping = false;
  function stop(sig: NodeJS.Signals, exitCode = 0): void {
    if (stopping) return;
    stopping = true;
    const done = () => { if (!Object.keys(cluster.workers ?? {}).length) process.exit(exitCode); };
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(sig);
    cluster.on('exit', done);
    done();
  }
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGTERM'));
  process.on('SIGHUP', () => { for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGHUP'); });
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? `config has errors:\n${err.message}` : err);
  process.exit(1);
});
