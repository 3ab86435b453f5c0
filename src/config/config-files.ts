// Where the config files are: an operator's config directory holds its own channels.yaml, and may leave routes.yaml
// out to keep the routes this install ships (the public API is the same; only the vendors behind it differ).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: dist/src/config/ is three levels below it. */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function configFile(configDir: string, name: 'routes.yaml' | 'channels.yaml'): string {
  return name === 'routes.yaml' && usesShippedRoutes(configDir) ? join(projectRoot, name) : join(configDir, name);
}

/** True for a config directory other than the install's that has no routes.yaml of its own. */
export function usesShippedRoutes(configDir: string): boolean {
  return resolve(configDir) !== projectRoot && !existsSync(join(configDir, 'routes.yaml'));
}
