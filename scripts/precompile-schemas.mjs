// Writes the shipped schemas' validators next to the compiled schema registry (run by `npm run build` after tsc).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { precompiledModule } from '../dist/src/config/precompile-schemas.js';
import { precompiledFile } from '../dist/src/config/schema-fingerprint.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { code, left } = precompiledModule(`${root}schemas`);
writeFileSync(new URL(`../dist/src/config/${precompiledFile}`, import.meta.url), code);
if (left.length && process.argv.includes('--verbose')) console.log(`compiled at runtime: ${left.join(', ')}`);
