// The coding agents' settings as docs/recipes/coding-agents.md gives them, word for word, with only the gateway's
// address and the key put in: the agent tests run the agents with these, so the recipe is what was tested.
import { docBlock } from './doc-blocks.js';

export const recipe = 'docs/recipes/coding-agents.md';
const demoUrl = 'http://127.0.0.1:3000';

/** A settings block of the recipe (by its `id`), pointed at `url` instead of the demo's address. */
export function recipeText(id: string, url: string): string {
  return docBlock(recipe, id).replaceAll(demoUrl, url);
}

/**
 * The variables a command line of the recipe sets before the command (`NAME=value … agent`), with the demo's address
 * replaced by `url` and `$KEY` by the key.
 */
export function recipeEnv(id: string, url: string, key: string): Record<string, string> {
  const env: Record<string, string> = {};
  const line = docBlock(recipe, id).split('\n').find((l) => /^[A-Z_][A-Z0-9_]*=/.test(l)) ?? '';
  for (const word of line.split(/\s+/)) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word);
    if (!m) break;
    env[m[1]] = m[2].replaceAll(demoUrl, url).replaceAll('$KEY', key);
  }
  if (!Object.keys(env).length) throw new Error(`${recipe}: block ${id} sets no variables`);
  return env;
}
