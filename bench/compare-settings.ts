// What a setting costs per request: the bench's gateway as configured against a second gateway on the same rig,
// store and core with extra environment (a feature off, another value), and the bare pass-through, non-streaming chat
// at 1 and 64 connections, runs interleaved. Not a scenario of the report: a contributor's question, answered in
// about a minute. Several settings at once (a JSON array) start one gateway each, all in the same rotation.
//   node dist/bench/compare-settings.js '{"SWITCHYARD_LOG_STORE":"off"}' [runs] [seconds]
//   node dist/bench/compare-settings.js '[{"SWITCHYARD_LOG_STORE":"off"},{"LOG_LEVEL":"warn"}]' 7 3
// SWITCHYARD_BENCH_MAIN in a setting runs another build's gateway (its dist/src/main.js) with this config and store:
//   node dist/bench/compare-settings.js '[{"SWITCHYARD_BENCH_MAIN":"/path/to/old/dist/src/main.js"}]' 15 2
import { fileURLToPath } from 'node:url';
import { closedLoop } from './closed-loop.js';
import { cpuSeconds, perCpuBusySeconds } from './proc-stats.js';
import { canPin, pinSelf, startRig, CLIENT_CPU, GATEWAY_CPU } from './processes.js';
import { chatBody, type Target } from './scenario.js';
import { median, pairedDelta } from './stats.js';

const [envJson = '{}', runsArg = '3', secondsArg = '3'] = process.argv.slice(2);
const parsed = JSON.parse(envJson) as Record<string, string> | Record<string, string>[];
const settings = Array.isArray(parsed) ? parsed : [parsed];
const runs = Number(runsArg);
const seconds = Number(secondsArg);
const root = fileURLToPath(new URL('../../', import.meta.url));
const pin = canPin() && pinSelf(CLIENT_CPU);

const rig = await startRig({ root, pin, logLevel: 'info', verbose: false, onCrash: (why) => { console.error(why); process.exit(1); } });
// One at a time: gateways starting together on a busy machine can miss their start deadline.
const others: Awaited<ReturnType<typeof rig.extraGateway>>[] = [];
for (const [i, env] of settings.entries()) others.push(await rig.extraGateway(`gateway-with-setting-${i + 1}`, env, true));
try {
  const label = (i: number) => (settings.length === 1 ? 'with setting' : `setting ${i + 1}`);
  const targets: Record<string, { t: Target; pid: number }> = {
    configured: { t: { name: 'gateway', url: rig.gatewayUrl, key: rig.gatewayKey }, pid: rig.gateway.pid },
    ...Object.fromEntries(others.map((o, i) => [label(i), { t: { name: 'gateway', url: o.url, key: rig.gatewayKey }, pid: o.child.pid }])),
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
  // Other processes on the gateway's core: its busy time less the rig's processes pinned there.
  const pinned = [rig.gateway.pid, rig.bare.pid, ...others.map((o) => o.child.pid)];
  const ownCpu = () => pinned.reduce((s, p) => s + cpuSeconds(p), 0);
  const busy0 = perCpuBusySeconds()[GATEWAY_CPU];
  const own0 = ownCpu();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) {
    // Rotated per run, as the report's scenarios do: the target run right after another pays for its leftovers.
    for (const n of names.map((_, k) => names[(k + i) % names.length])) for (const c of [1, 64]) us[n][c].push(await cpuPerRequest(n, c, seconds));
  }
  const wall = (performance.now() - t0) / 1000;
  const foreign = (perCpuBusySeconds()[GATEWAY_CPU] - busy0 - (ownCpu() - own0)) / wall;
  console.log(`${runs} runs of ${seconds} s, medians of CPU per request (all threads); other processes took ${(Math.max(0, foreign) * 100).toFixed(0)} % of the gateway's core meanwhile`);
  settings.forEach((s, i) => console.log(`${label(i)}: ${JSON.stringify(s)}`));
  for (const c of [1, 64]) {
    const m = Object.fromEntries(names.map((n) => [n, median(us[n][c])]));
    const vsBare = names.filter((n) => n !== 'bare').map((n) => `${n} ÷ bare ${(m[n] / m.bare).toFixed(2)}×`).join(', ');
    const deltas = names.filter((n) => n !== 'bare' && n !== 'configured').map((n) => `configured − ${n} ${pairedDelta(us.configured[c], us[n][c]).toFixed(0)} µs`).join(', ');
    console.log(`${c} connection${c > 1 ? 's' : ''}: ${names.map((n) => `${n} ${m[n].toFixed(0)} µs`).join(', ')}; ${vsBare}; ${deltas} (median of per-run differences)`);
  }
} finally {
  for (const o of others) await o.stop();
  await rig.stop();
}
