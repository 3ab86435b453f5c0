// Writes the generated references of docs/: the configuration reference from schemas/config/ and the API reference
// from the OpenAPI document (built from the shipped config, as GET /openapi.json serves it, without a server), and the
// README's vendor table from vendors/*.yaml.
// `--check` renders them in memory and fails when a committed page is stale, as gen-types.mjs --check does for types.
// Needs the build (dist/), which `npm run gen:docs` and `npm test` run first.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigReference } from './docs/config-reference.mjs';
import { renderApiReference } from './docs/api-reference.mjs';
import { withVendorTable } from './docs/vendor-table.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const schemasDir = join(root, 'schemas');
const check = process.argv.includes('--check');

/** The document of the shipped config with the admin routes in, whatever this shell's environment holds. */
async function openapi() {
  const { loadRuntime, projectRoot } = await import('../dist/src/config/load-config.js');
  const { buildDocument } = await import('../dist/src/openapi/document.js');
  const { policyOf } = await import('../dist/src/policies/index.js');
  const { runtime } = loadRuntime(projectRoot, { SWITCHYARD_ADMIN_KEY: 'x'.repeat(40) });
  return buildDocument(runtime, policyOf);
}

const pages = [
  ['docs/operators/config-reference.md', async () => renderConfigReference(join(schemasDir, 'config'))],
  ['docs/clients/api-reference.md', async () => renderApiReference(await openapi(), schemasDir)],
  ['README.md', async () => withVendorTable(await readFile(join(root, 'README.md'), 'utf8'), root)], // its vendor table only
];

let stale = 0;
for (const [page, render] of pages) {
  const text = await render();
  const path = join(root, page);
  if (!check) { await writeFile(path, text); continue; }
  if ((await readFile(path, 'utf8').catch(() => '')) !== text) { console.error(`stale generated doc: ${page} (run npm run gen:docs)`); stale++; }
}
if (stale) process.exit(1);
if (check) console.log('generated docs are up to date');
