// keyv records are written by serializeKv and read by deserializeKv (src/store/kv-serialize.ts): keyv's own format,
// faster. Checked against keyv's serializer and deserializer on generated values full of the two marks it adds
// (strings opening with ':', Buffers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Keyv from 'keyv';
import { deserializeKv, serializeKv } from '../src/store/kv-serialize.js';

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

test('deserializeKv reads what keyv\'s deserializer reads: any text keyv wrote, and JSON laid out with spaces', () => {
  fc.assert(fc.property(value, (v) => {
    const written = keyvSerialize({ value: v, expires: 1 });
    assert.deepEqual(deserializeKv(written), keyvDeserialize(written));
    const spaced = JSON.stringify(JSON.parse(written), null, 1);
    assert.deepEqual(deserializeKv(spaced), keyvDeserialize(spaced));
  }), { numRuns: 2000 });
});

test('what serializeKv writes reads back as it was (strings with ":" and Buffers included)', () => {
  const record = { value: { a: ':x', b: ['::y', Buffer.from('hi')], c: { ':k': 'plain' }, top: 'he said [":' }, expires: 5 };
  const text = serializeKv(record);
  assert.match(text, /"::x"/, 'a string opening with ":" gets keyv\'s extra ":"');
  assert.match(text, /":base64:aGk="/, 'a Buffer is written as keyv writes it');
  assert.deepEqual(keyvDeserialize(text), record);
  assert.deepEqual(deserializeKv(text), record);
  const plain = { value: { id: 'resp_1', output: [{ text: 'no marks here: none' }] }, expires: 1 };
  assert.equal(serializeKv(plain), JSON.stringify(plain), 'without marks it is JSON.stringify\'s text');
});

test('a record with a "toJSON" field that is not a function is written and read back (keyv\'s own serializer threw on it)', () => {
  const record = { value: { request: { metadata: { toJSON: 'x' } }, note: ':kept' }, expires: 3 };
  assert.throws(() => keyvSerialize(record), TypeError, 'keyv\'s serializer calls any truthy toJSON');
  assert.deepEqual(deserializeKv(serializeKv(record)), record);
});
