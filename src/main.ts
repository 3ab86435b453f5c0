// `npm start`: the gateway on PORT (default 3000); with --with-simulator, the bundled vendor simulator beside it.
import { startGateway } from './start.js';
import { ConfigError } from './config/diagnostics.js';

async function main(): Promise<void> {
  if (process.argv.includes('--with-simulator')) {
    // Loaded only here so production starts never touch simulator code.
    const { startSimulator } = await import('../simulator/server.js');
    const port = Number(process.env.SIM_PORT ?? 4010);
    const sim = await startSimulator({ port, host: '127.0.0.1' });
    process.env.SWITCHYARD_SIM_URL ??= sim.url;
    console.error(`vendor simulator on ${sim.url} (channels.yaml points the sim_* channels here)`);
  }
  const running = await startGateway({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
  console.error(`switchyard on ${running.url}`);
  const stop = () => { void running.close().then(() => process.exit(0)); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? `config has errors:\n${err.message}` : err);
  process.exit(1);
});
