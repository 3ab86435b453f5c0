// Not a scenario: `node dist/bench/kept-answers.js [turns]` times keeping a long Responses conversation in a SQLite
// store, turn by turn (src/store/conversations.ts), as `previous_response_id` chains do: each turn's record is the
// whole history. As the gateway keeps it; with keyv's own serializer and deserializer instead of
// src/store/kv-serialize.ts; writing every item of the history again on each turn (before a turn indexed only the
// items it added); and both, as before. The figures are the store's time on the event loop.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import { openStore } from '../src/store/open-store.js';
import { Conversations } from '../src/store/conversations.js';

const turns = Number(process.argv[2] ?? 200);
const text = 'lorem ipsum dolor sit amet, consectetur adipiscing elit '.repeat(8);
const day = 86_400_000;

interface Way { name: string; keyvSerializer: boolean; rewriteAll: boolean }

async function session(way: Way): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-kept-'));
  const store = await openStore(`sqlite://${join(dir, 'store.sqlite')}`, { quotaFlushMs: 0 });
  if (way.keyvSerializer) {
    const kv = store.kv('responses');
    const plain = new Keyv();
    kv.serialize = plain.serialize;
    kv.deserialize = plain.deserialize;
  }
  const conversations = new Conversations(store);
  let items: unknown[] = [];
  const put: number[] = [];
  const get: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const previous = items;
    const answer = { id: `msg_${turn}`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
    items = [...previous, { type: 'message', role: 'user', content: text }, answer];
    const t0 = performance.now();
    await conversations.put('responses', 'u', { id: `resp_${turn}`, created_at: turn, response: { id: `resp_${turn}`, output: [answer] }, items }, day, way.rewriteAll ? [] : previous);
    const t1 = performance.now();
    await conversations.get('responses', 'u', `resp_${turn}`); // what the next turn's recall reads
    put.push(t1 - t0);
    get.push(performance.now() - t1);
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  const avg = (a: number[]) => (a.reduce((x, y) => x + y, 0) / a.length).toFixed(2);
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0).toFixed(0);
  const kb = (Buffer.byteLength(JSON.stringify(items)) / 1024).toFixed(0);
  return `| ${way.name} | ${avg(put.slice(0, 10))} / ${avg(put.slice(-10))} ms | ${avg(get.slice(-10))} ms | ${sum(put)} + ${sum(get)} ms | ${kb} KB |`;
}

const ways: Way[] = [
  { name: 'as kept now', keyvSerializer: false, rewriteAll: false },
  { name: "keyv's own serializer", keyvSerializer: true, rewriteAll: false },
  { name: 'every item again each turn', keyvSerializer: false, rewriteAll: true },
  { name: 'both, as before (keyv serializer, every item)', keyvSerializer: true, rewriteAll: true },
];
console.log(`| ${turns}-turn session | keep, first / last 10 turns | read, last 10 | whole session (keep + read) | last record |`);
console.log('|---|---|---|---|---|');
for (const way of [...ways, ...ways]) console.log(await session(way)); // twice: the first pass warms up
