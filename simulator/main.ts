// CLI entry: runs the simulator standalone so the gateway can be tried without any vendor keys.
import { startSimulator } from './server.js';

const port = Number(process.env.PORT ?? 4010);
// SIM_KEYS lets a demo config use its own fake key without code changes.
const keys = process.env.SIM_KEYS?.split(',').map((k) => k.trim()).filter(Boolean);

const sim = await startSimulator({ port, host: '127.0.0.1', keys: keys?.length ? keys : undefined });
console.log(`Switchyard vendor simulator listening on ${sim.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sim.close().then(() => process.exit(0));
  });
}
