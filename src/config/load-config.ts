// Loads, checks and compiles the config directory; the single entry used by start, reload and `check`.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { checkConfig } from './check.js';
import { compileRuntime } from './compile.js';
import { ConfigError, type Diagnostic } from './diagnostics.js';
import { SchemaRegistry } from './schema-registry.js';
import type { Runtime } from './runtime.js';

import { projectRoot } from './config-files.js';

export { projectRoot };

const registries = new Map<string, SchemaRegistry>();

/**
 * The schemas shipped under schemas/, plus an operator's own request schemas in `<config dir>/schemas/api/` (a new
 * vendor format needs no change to the install). Compiled once a process for each set of schemas: config directories
 * without schemas of their own share the shipped ones' (compiling them costs more than the rest of a load together).
 */
export function schemaRegistry(configDir = projectRoot): SchemaRegistry {
  const own = join(configDir, 'schemas', 'api');
  const extra = configDir !== projectRoot && existsSync(own) ? [own] : [];
  const key = extra.join('\n');
  let r = registries.get(key);
  if (!r) {
    r = new SchemaRegistry(join(projectRoot, 'schemas'), extra);
    registries.set(key, r);
  }
  return r;
}

export function defaultConfigDir(): string {
  return process.env.SWITCHYARD_CONFIG_DIR ?? projectRoot;
}

/** Throws ConfigError with every finding when the config has errors. */
export function loadRuntime(configDir = defaultConfigDir(), env = process.env): { runtime: Runtime; warnings: Diagnostic[] } {
  const reg = schemaRegistry(configDir);
  const result = checkConfig(configDir, reg, env);
  if (!result.ok || !result.config) throw new ConfigError(result.diagnostics);
  return { runtime: compileRuntime(result.config, reg), warnings: result.diagnostics.filter((d) => d.level === 'warning') };
}
