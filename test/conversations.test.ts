// Kept answers (src/store/conversations.ts): each turn keeps its record and indexes only the items it added, so a
// long conversation's turn does not rewrite its whole history's items.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/open-store.js';
import { Conversations } from '../src/store/conversations.js';

const day = 86_400_000;
const message = (id: string, text: string) => ({ id, type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });

test('a continued conversation indexes only its new items; every item of the history is still found by id', async () => {
  const store = await openStore(`sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-conv-')), 'store.sqlite')}`, { quotaFlushMs: 0 });
  const conversations = new Conversations(store);
  const kv = store.kv('responses');
  const indexed: string[][] = [];
  const setMany = kv.setMany.bind(kv);
  kv.setMany = ((entries: { key: string }[]) => { indexed.push(entries.map((e) => e.key)); return setMany(entries as never); }) as typeof kv.setMany;

  const user = { type: 'message', role: 'user', content: 'hi' }; // an input item without an id is kept, never indexed
  let items: unknown[] = [user, message('msg_1', 'one')];
  const first = await conversations.put('responses', 'u1', { id: 'resp_1', created_at: 1, response: { id: 'resp_1' }, items }, day);
  assert.equal(first.bytes, Buffer.byteLength(JSON.stringify({ ...first, bytes: 0 })), "its size, as a continuation checks it");
  for (let turn = 2; turn <= 5; turn++) {
    const previous = items;
    items = [...previous, { type: 'message', role: 'user', content: `turn ${turn}` }, message(`msg_${turn}`, ':starts with a colon')];
    await conversations.put('responses', 'u1', { id: `resp_${turn}`, created_at: turn, response: { id: `resp_${turn}` }, items }, day, previous);
  }
  assert.deepEqual(indexed, [1, 2, 3, 4, 5].map((n) => [`u1:r:resp_${n}`, `u1:i:msg_${n}`]), 'each turn wrote its record and its own item only, in one write');
  for (let n = 1; n <= 5; n++) assert.equal((await conversations.item('responses', 'u1', `msg_${n}`) as { id: string }).id, `msg_${n}`);
  const last = await conversations.get('responses', 'u1', 'resp_5');
  assert.equal(last?.items.length, 10, 'the record keeps the whole history');
  assert.deepEqual(last?.items.at(-1), message('msg_5', ':starts with a colon'));
  assert.equal(await conversations.item('responses', 'u2', 'msg_1'), undefined, 'another owner finds nothing');
  await store.close();
});

test('an answer the store did not take is an error, not a silent loss (the caller logs it as not kept)', async () => {
  const store = await openStore(`sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-conv-')), 'store.sqlite')}`, { quotaFlushMs: 0 });
  const conversations = new Conversations(store);
  // keyv catches the adapter's failure and answers `false` per entry.
  const adapter = store.kv('responses').store as { setMany: (rows: unknown[]) => Promise<boolean[]> };
  adapter.setMany = async () => { throw new Error('disk I/O error'); };
  await assert.rejects(conversations.put('responses', 'u1', { id: 'resp_1', created_at: 1, response: { id: 'resp_1' }, items: [message('msg_1', 'one')] }, day),
    /did not take the answer/);
  assert.equal(await conversations.get('responses', 'u1', 'resp_1'), undefined);
  await store.close();
});
