// What ties the validators generated at build time (precompile-schemas.ts) to the schema files they were made from.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';

/** The generated module, next to the compiled schema-registry.js in dist/. */
export const precompiledFile = 'precompiled-schemas.cjs';
/** Where the module keeps its fingerprint: never a schema's $id, which is a file name. */
export const fingerprintKey = '#fingerprint';

/** The generated module: each shipped schema's validator by $id, and the fingerprint of what it was made from. */
export type PrecompiledModule = Record<string, ValidateFunction | string>;

const ajvVersion = (createRequire(import.meta.url)('ajv/package.json') as { version: string }).version;

/** The shipped schema files (name and text, in the order they are added) and the ajv that compiles them. */
export function schemaFingerprint(files: [string, string][]): string {
  const h = createHash('sha256').update(`ajv ${ajvVersion}\n`);
  for (const [name, text] of files) h.update(`${name}\n${text.length}\n${text}`);
  return h.digest('hex');
}
