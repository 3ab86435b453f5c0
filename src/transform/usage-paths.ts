// Usage read from a dialect's own answers by declared paths, without JSONata: where bytes pass untouched the
// gateway still bills what the vendor reported.
import type { UsagePaths } from '../types/generated/routes.js';
import type { Usage } from '../pipeline/context.js';

/** `events` empty: any event may carry usage, and one is parsed when its text has a `keys` entry (`"usageMetadata"`). */
export interface CompiledUsagePaths { at: string[][]; prompt: string[]; completion: string[]; events: Set<string>; keys: string[] }

export function compileUsagePaths(u: UsagePaths): CompiledUsagePaths {
  const at = u.at.map((p) => p.split('.'));
  return { at, prompt: u.prompt_tokens, completion: u.completion_tokens, events: new Set(u.events ?? []), keys: [...new Set(at.map((p) => `"${p[0]}"`))] };
}

/** Whether a stream event may carry usage: it is one the dialect names, or (names none) its text has a usage field. */
export function mayCarryUsage(paths: CompiledUsagePaths, name: string | undefined, data: string): boolean {
  return paths.events.size ? Boolean(name && paths.events.has(name)) : paths.keys.some((k) => data.includes(k));
}

/** The usage an answer (or one stream event) reports, merged over what earlier events reported. */
export function readUsage(paths: CompiledUsagePaths, answer: unknown, before?: Usage): Usage | undefined {
  const found = paths.at.map((p) => dig(answer, p)).find((v) => v && typeof v === 'object') as Record<string, unknown> | undefined;
  if (!found) return before;
  const prompt = sum(found, paths.prompt);
  const completion = sum(found, paths.completion);
  if (prompt === undefined && completion === undefined) return before;
  return { prompt_tokens: prompt ?? before?.prompt_tokens ?? 0, completion_tokens: completion ?? before?.completion_tokens ?? 0 };
}

export function dig(v: unknown, path: string[]): unknown {
  let node = v;
  for (const k of path) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[k];
  }
  return node;
}

/** The sum of the fields present as non-negative integers; undefined when none is. */
function sum(o: Record<string, unknown>, fields: string[]): number | undefined {
  let total: number | undefined;
  for (const f of fields) {
    const n = o[f];
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0) total = (total ?? 0) + n;
  }
  return total;
}
