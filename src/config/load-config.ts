// Loads, checks and compiles the config directory; the single entry used by start, reload and `check`.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkConfig } from './check.js';
import { compileRuntime } from './compile.js';
import { ConfigError, type Diagnostic } from './diagnostics.js';
import { SchemaRegistry } from './schema-registry.js';
import type { Runtime } from './runtime.js';

/** The repository root: dist/src/config/ is three levels below it. */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

let registry: SchemaRegistry | undefined;
export function schemaRegistry(): SchemaRegistry {
  registry ??= new SchemaRegistry(join(projectRoot, 'schemas'));
  return registry;
}

export function defaultConfigDir(): string {
  return process.env.SWITCHYARD_CONFIG_DIR ?? projectRoot;
}

/** Throws ConfigError with every finding when the config has errors. */
export function loadRuntime(configDir = defaultConfigDir(), env = process.env): { runtime: Runtime; warnings: Diagnostic[] } {
  const reg = schemaRegistry();
  const result = checkConfig(configDir, reg, env);
  if (!result.ok || !result.config) throw new ConfigError(result.diagnostics);
  return { runtime: compileRuntime(result.config, reg), warnings: result.diagnostics.filter((d) => d.level === 'warning') };
}
