// Generates src/types/generated/*.ts from schemas/ with json-schema-to-typescript.
// `--check` regenerates in memory and fails when a committed file is stale.
import { compileFromFile } from 'json-schema-to-typescript';
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join, basename } from 'node:path';

const outDir = 'src/types/generated';
const dirs = ['schemas/config', 'schemas/api', 'schemas/transform'];
const check = process.argv.includes('--check');
const banner = '/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */';

let stale = 0;
await mkdir(outDir, { recursive: true });
for (const dir of dirs) {
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) {
    const ts = await compileFromFile(join(dir, file), {
      cwd: dir,
      bannerComment: banner,
      additionalProperties: false,
      style: { singleQuote: true },
      declareExternallyReferenced: true,
      // Arrays stay arrays: minItems/maxItems become comments, not an explosion of tuple types.
      maxItems: -1,
    });
    const out = join(outDir, basename(file).replace(/(\.schema)?\.json$/, '.ts'));
    if (check) {
      const current = await readFile(out, 'utf8').catch(() => '');
      if (current !== ts) { console.error(`stale generated type: ${out} (run npm run gen:types)`); stale++; }
    } else {
      await writeFile(out, ts);
    }
  }
}
if (stale) process.exit(1);
if (check) console.log('generated types are up to date');
