// keyv records are written by serializeKv (src/store/kv-serialize.ts): the text keyv's own serializer writes, found
// faster. Checked against keyv's serializer on generated values full of the two marks it adds (strings opening with
// ':', Buffers), and read back by keyv's deserializer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Keyv from 'keyv';
import { serializeKv } from '../src/store/kv-serialize.js';

const keyv = new Keyv();
const keyvSerialize = keyv.serialize! as (data: unknown) => string;
const keyvDeserialize = keyv.deserialize!;

/** Strings that often open with one or more ':' (keyv's mark) or hold '":' sequences. */
const text = fc.oneof(fc.string(), fc.string().map((s) => `:${s}`), fc.string().map((s) => `::${s}`), fc.constantFrom('', ':', '[":', '{":x', ':base64:AA=='));
const leaf = fc.oneof(text, fc.double({ noNaN: true }), fc.integer(), fc.boolean(), fc.constant(null), fc.uint8Array({ maxLength: 8 }).map((a) => Buffer.from(a)));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(text, tie('node'), { maxKeys: 4 })),
})).node;

test('serializeKv writes what keyv\'s serializer writes, for any JSON data with its marks', () => {
  fc.assert(fc.property(value, fc.option(fc.integer({ min: 0 })), (v, expires) => {
    const record = { value: v, expires: expires ?? undefined };
    assert.equal(serializeKv(record), keyvSerialize(record));
    assert.equal(serializeKv(v), keyvSerialize(v));
  }), { numRuns: 2000 });
});

test('what serializeKv writes reads back as it was (strings with ":" and Buffers included)', () => {
  const record = { value: { a: ':x', b: ['::y', Buffer.from('hi')], c: { ':k': 'plain' }, top: 'he said [":' }, expires: 5 };
  const text = serializeKv(record);
  assert.match(text, /"::x"/, 'a string opening with ":" gets keyv\'s extra ":"');
  assert.match(text, /":base64:aGk="/, 'a Buffer is written as keyv writes it');
  assert.deepEqual(keyvDeserialize(text), record);
  const plain = { value: { id: 'resp_1', output: [{ text: 'no marks here: none' }] }, expires: 1 };
  assert.equal(serializeKv(plain), JSON.stringify(plain), 'without marks it is JSON.stringify\'s text');
});
