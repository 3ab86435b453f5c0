// V8's old-generation headroom, set before the gateway allocates anything (main.ts imports this first).
//
// Why: a relayed download allocates a fresh buffer for every socket read (and, with node:http's client, which the
// gateway used until undici, another for every parsed body chunk): up to 400 MB of short-lived external memory per
// 200 MB moved. V8 answers that with a young-generation collection every 32 MB, and after each one starts a full
// mark-compact if the old generation's headroom (its limit less its size) is below the young generation's
// capacity. The limit is the live heap times a factor V8 picks from its measured GC speed, often 1.3-1.9 on a busy
// host; with the gateway's ~28 MB of live heap that leaves less headroom than the young generation (~32 MB), so
// every young collection became a full one: 13 mark-compacts per 200 MB and 2.5-3x the CPU of a bare node:http
// relay (bench `download`, docs/contributors/performance.md). A fixed factor of 3 keeps 2x the live heap as headroom: no full
// collections during a download, at most ~2x the live heap of extra garbage before one.
// SWITCHYARD_HEAP_GROWING_PERCENT overrides it; 0 restores V8's own choice.
import { setFlagsFromString } from 'node:v8';

const flag = '--heap-growing-percent';
const raw = process.env.SWITCHYARD_HEAP_GROWING_PERCENT ?? '200';
const percent = Number(raw);

if (!Number.isInteger(percent) || percent < 0 || percent > 1000) {
  console.error(`SWITCHYARD_HEAP_GROWING_PERCENT must be a whole number from 0 to 1000 (got ${JSON.stringify(raw.slice(0, 20))}); V8's default is kept`);
} else if (percent > 0 && !process.execArgv.some((a) => a.startsWith(flag))) {
  // A flag given on node's command line wins.
  setFlagsFromString(`${flag}=${percent}`);
}
