// What a setting costs per request: the bench's gateway as configured against a second gateway on the same rig,
// store and core with extra environment (a feature off, another value), and the bare pass-through, non-streaming chat
// at 1 and 64 connections, runs interleaved. Not a scenario of the report: a contributor's question, answered in
// about a minute.
//   node dist/bench/compare-settings.js '{"SWITCHYARD_LOG_STORE":"off"}' [runs] [seconds]
import { fileURLToPath } from 'node:url';
import { closedLoop } from './closed-loop.js';
import { cpuSeconds } from './proc-stats.js';
import { canPin, pinSelf, startRig, CLIENT_CPU } from './processes.js';
import { chatBody, type Target } from './scenario.js';
import { median } from './stats.js';

const [envJson = '{}', runsArg = '3', secondsArg = '3'] = process.argv.slice(2);
const extra = JSON.parse(envJson) as Record<string, string>;
const runs = Number(runsArg);
const seconds = Number(secondsArg);
const root = fileURLToPath(new URL('../../', import.meta.url));
const pin = canPin() && pinSelf(CLIENT_CPU);

const rig = await startRig({ root, pin, logLevel: 'info', verbose: false, onCrash: (why) => { console.error(why); process.exit(1); } });
const other = await rig.extraGateway('gateway-with-setting', extra, true);
try {
  const targets: Record<string, { t: Target; pid: number }> = {
    configured: { t: { name: 'gateway', url: rig.gatewayUrl, key: rig.gatewayKey }, pid: rig.gateway.pid },
    'with setting': { t: { name: 'gateway', url: other.url, key: rig.gatewayKey }, pid: other.child.pid },
    bare: { t: { name: 'bare', url: rig.bareUrl, key: rig.directKey }, pid: rig.bare.pid },
  };
  const body = chatBody();
  const signal = new AbortController().signal;
  const cpuPerRequest = async (name: string, connections: number, secs: number) => {
    const { t, pid } = targets[name];
    const r = await closedLoop({ target: t, path: '/v1/chat/completions', body, connections, seconds: secs, signal, watch: { cpu: () => cpuSeconds(pid) } });
    if (r.non2xx + r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return (r.cpu.cpu! * 1e6) / r.ok;
  };
  const names = Object.keys(targets);
  for (const n of names) await cpuPerRequest(n, 64, 2); // warm-up
  const us: Record<string, Record<number, number[]>> = Object.fromEntries(names.map((n) => [n, { 1: [], 64: [] }]));
  for (let i = 0; i < runs; i++) {
    // Rotated per run, as the report's scenarios do: the target run right after another pays for its leftovers.
    for (const n of names.map((_, k) => names[(k + i) % names.length])) for (const c of [1, 64]) us[n][c].push(await cpuPerRequest(n, c, seconds));
  }
  console.log(`setting: ${envJson}; ${runs} runs of ${seconds} s, medians of CPU per request (all threads)`);
  for (const c of [1, 64]) {
    const m = Object.fromEntries(names.map((n) => [n, median(us[n][c])]));
    console.log(`${c} connection${c > 1 ? 's' : ''}: ${names.map((n) => `${n} ${m[n].toFixed(0)} µs`).join(', ')}; ` +
      `configured ÷ bare ${(m.configured / m.bare).toFixed(2)}×, with setting ÷ bare ${(m['with setting'] / m.bare).toFixed(2)}×`);
  }
} finally {
  await other.stop();
  await rig.stop();
}
