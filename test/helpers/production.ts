// The production config (deploy/config/) run as it ships, with every vendor's `<VENDOR>_BASE_URL` pointed at the
// bundled simulator and each key set to what the simulator accepts for that vendor. What ships is what is tested.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../../src/config/load-config.js';
import { startStack, type Stack } from './stack.js';

export const productionDir = join(projectRoot, 'deploy', 'config');

/** The simulator's credentials for the variables that are not a plain bearer key (those get `sim-key`). */
const simCredentials: Record<string, string> = {
  KLING_ACCESS_KEY: 'sim-ak',
  KLING_SECRET_KEY: 'sim-sk',
  VOLCENGINE_ACCESS_KEY: 'sim-ak',
  VOLCENGINE_SECRET_KEY: 'sim-sk',
};

/** Every variable each shipped vendor file declares, read from vendors/*.yaml. */
export function vendorVariables(): Map<string, string> {
  const vars = new Map<string, string>();
  const dir = join(projectRoot, 'vendors');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
    const v = parse(readFileSync(join(dir, f), 'utf8')) as { env: Record<string, string> };
    for (const name of Object.keys(v.env)) vars.set(name, f);
  }
  return vars;
}

/** The environment that points every vendor at the simulator. */
export function simulatorEnv(simUrl: string): Record<string, string> {
  const env: Record<string, string> = { SWITCHYARD_ALLOW_PRIVATE_NETWORKS: '1' };
  for (const name of vendorVariables().keys()) {
    env[name] = name.endsWith('_BASE_URL') ? simUrl : simCredentials[name] ?? 'sim-key';
  }
  return env;
}

export function startProduction(env: Record<string, string> = {}): Promise<Stack> {
  return startStack({ configDir: productionDir, env: { SWITCHYARD_SIM_URL: 'http://127.0.0.1:1', ...env }, envFor: simulatorEnv });
}
