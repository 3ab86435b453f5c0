// The clients' error page keeps up with the error catalog: every code the gateway can answer is listed there with its
// status, so a code added to src/http/errors.ts without a word for clients fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readDoc } from './helpers/doc-blocks.js';
import { catalog } from '../src/http/errors.js';

test('docs/clients/errors.md lists every code of the catalog with its status', () => {
  const page = readDoc('docs/clients/errors.md');
  const rows = page.split('\n').filter((l) => l.startsWith('| `'));
  for (const [code, { status }] of Object.entries(catalog)) {
    const row = rows.find((r) => r.includes(`\`${code}\``));
    assert.ok(row, `${code} is not in docs/clients/errors.md`);
    assert.match(row, new RegExp(`\\b${status}\\b`), `${code}: its row does not say ${status}`);
  }
});
