// The redactor's masking (src/redaction/redactor.ts) against a plain reference: every secret (with regex characters,
// non-ASCII, one inside another) masked wherever it stands, as text and as bytes, and the held-back tail of a chunk
// exactly the longest start of a secret it ends with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Redactor } from '../src/redaction/redactor.js';

const alphabet = fc.constantFrom(...[...'ab.*+?^$|()[]{}\\/-:é€😀"%'], 'sk', 'ey'); // by code point: a secret is a well-formed string
const piece = fc.array(alphabet, { minLength: 1, maxLength: 8 }).map((a) => a.join(''));
const secretArb = fc.array(alphabet, { minLength: 4, maxLength: 12 }).map((a) => a.join('')).filter((s) => s.length >= 4);

/** The masks a plain search makes: each secret (and its URL and JSON forms) replaced, longest first. */
function reference(secrets: string[], s: string): string {
  const all = new Set<string>();
  for (const x of secrets) { all.add(x); all.add(encodeURIComponent(x)); all.add(JSON.stringify(x).slice(1, -1)); }
  for (const x of [...all].filter((y) => y.length >= 4).sort((a, b) => b.length - a.length)) s = s.split(x).join('*'.repeat(Buffer.byteLength(x)));
  return s;
}

const forms = (secrets: string[]) => [...new Set(secrets.flatMap((x) => [x, encodeURIComponent(x), JSON.stringify(x).slice(1, -1)]))].filter((y) => y.length >= 4);

test('text and bytes are masked as a plain search masks them, however many secrets and whatever they contain', () => {
  fc.assert(fc.property(fc.uniqueArray(secretArb, { minLength: 1, maxLength: 6 }), fc.array(fc.oneof(piece, fc.nat(5)), { maxLength: 12 }), (secrets, parts) => {
    const r = new Redactor();
    r.setSecrets(secrets);
    const s = parts.map((p) => (typeof p === 'number' ? secrets[p % secrets.length] : p)).join('');
    const want = reference(secrets, s);
    assert.equal(r.text(s), want);
    assert.equal(r.bytes(Buffer.from(s)).toString(), want);
  }), { numRuns: 1500 });
});

test('the tail held back is the longest end of a chunk that starts a secret, for text and for bytes', () => {
  fc.assert(fc.property(fc.uniqueArray(secretArb, { minLength: 1, maxLength: 5 }), piece, fc.nat(5), fc.nat(12), (secrets, head, which, cut) => {
    const r = new Redactor();
    r.setSecrets(secrets);
    const secret = secrets[which % secrets.length];
    const s = head + secret.slice(0, Math.min(cut, secret.length - 1));
    let want = 0;
    for (const x of forms(secrets)) for (let k = Math.min(x.length - 1, s.length); k > want; k--) if (x.startsWith(s.slice(s.length - k))) { want = k; break; }
    assert.equal(r.partialTail(s), want);
    const b = Buffer.from(s);
    let wantBytes = 0;
    for (const x of forms(secrets).map((y) => Buffer.from(y))) {
      for (let k = Math.min(x.length - 1, b.length); k > wantBytes; k--) if (x.subarray(0, k).equals(b.subarray(b.length - k))) { wantBytes = k; break; }
    }
    assert.equal(r.partialTailBytes(b), wantBytes);
  }), { numRuns: 1500 });
});

test('no secrets: nothing is masked or held back', () => {
  const r = new Redactor();
  assert.equal(r.active, false);
  assert.equal(r.text('sk-anything'), 'sk-anything');
  const b = Buffer.from('sk-anything');
  assert.equal(r.bytes(b), b, 'the same buffer, not a copy');
  assert.equal(r.partialTail('abc'), 0);
  assert.equal(r.partialTailBytes(b), 0);
});
