// Measures the burst a client can pass around a rate-limit window's edge, as an attacker who knows the limit would.
//   node scripts/rate-burst.mjs --key KEY [--url http://127.0.0.1:3000] [--requests 600] [--window-s 60]
//     [--path /v1/models] [--before-ms 2000] [--after-ms 100]
// 1. Sends requests until one is refused, then probes every 20 ms until one passes again: with fixed windows that
//    moment is a window's start. 2. Sends `requests` at once `before-ms` before that window's end (early enough for
//    the burst to finish before it), and as many again `after-ms` after the end. Prints how many passed in those two
//    bursts and over how many seconds (about 2 × the limit for fixed windows), and the most that passed within any
//    `window-s` span during the whole run.
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const url = `${(args.url ?? 'http://127.0.0.1:3000').replace(/\/$/, '')}${args.path ?? '/v1/models'}`;
const limit = Number(args.requests ?? 600);
const spanMs = Number(args['window-s'] ?? 60) * 1000;
const beforeMs = Number(args['before-ms'] ?? 2000);
const afterMs = Number(args['after-ms'] ?? 100);
if (!args.key) { console.error('--key KEY is needed'); process.exit(2); }

const passed = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
async function one() {
  const r = await fetch(url, { headers: { authorization: `Bearer ${args.key}` } });
  await r.arrayBuffer();
  if (r.status === 200) passed.push(Date.now());
  else if (r.status !== 429) throw new Error(`unexpected status ${r.status}`);
  return r.status;
}
async function burst(n) {
  const statuses = [];
  await Promise.all(Array.from({ length: 50 }, async () => { while (statuses.length < n) { statuses.push(0); statuses[statuses.length - 1] = await one(); } }));
  return statuses.filter((s) => s === 200).length;
}

const t0 = Date.now();
while ((await one()) === 200) { if (Date.now() - t0 > 2 * spanMs) throw new Error('never refused: is the limit right?'); }
while ((await one()) !== 200) await sleep(20);
const edge = Date.now() + spanMs; // the end of the window that just began
await sleep(edge - beforeMs - Date.now());
const from = passed.length;
const before = await burst(limit);
const beforeDone = Date.now() - edge;
await sleep(edge + afterMs - Date.now());
const after = await burst(limit);
const bursts = passed.slice(from);
const spanS = bursts.length ? (Math.max(...bursts) - Math.min(...bursts)) / 1000 : 0;
const sorted = passed.sort((a, b) => a - b);
let most = 0;
for (let i = 0, j = 0; j < sorted.length; j++) {
  while (sorted[j] - sorted[i] >= spanMs) i++;
  most = Math.max(most, j - i + 1);
}
console.log(JSON.stringify({ limit, window_s: spanMs / 1000, passed_before_edge: before, passed_after_edge: after, passed_around_edge: before + after, over_s: spanS, first_burst_done_ms_before_edge: -beforeDone, most_in_any_window: most }));
