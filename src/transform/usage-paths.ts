// Usage read from answers by declared paths, without JSONata: where bytes pass untouched the gateway still bills
// exactly what the vendor reported, class by class (cache reads and writes, reasoning, audio, images).
import type { UsagePaths } from '../types/generated/routes.js';
import type { Usage, UsageDetails } from './usage.js';

/** One step of a path: a key, and for an array the element whose `field` is `value` (`details[modality=AUDIO]`). */
type Step = { key: string; field?: string; value?: string };
type Path = Step[];

/** `events` empty: any event may carry usage, and one is parsed when its text has a `keys` entry (`"usageMetadata"`). */
export interface CompiledUsagePaths {
  at: Path[]; prompt: Path[]; completion: Path[]; details: [string, Path[]][]; events: Set<string>; keys: string[];
  /** Where the seconds of media the vendor billed sit (a transcription's). */
  seconds: Path[];
  /** Where the billable units the vendor reports sit (a rerank's search units), summed. */
  units: Path[];
}

export function compileUsagePaths(u: UsagePaths): CompiledUsagePaths {
  const at = u.at.map(compilePath);
  return {
    at, prompt: u.prompt_tokens.map(compilePath), completion: u.completion_tokens.map(compilePath),
    details: Object.entries(u.details ?? {}).map(([name, paths]) => [name, (paths as string[]).map(compilePath)]),
    events: new Set(u.events ?? []), keys: [...new Set(at.map((p) => `"${p[0].key}"`))],
    seconds: (u.seconds ?? []).map(compilePath),
    units: (u.units ?? []).map(compilePath),
  };
}

/** `a.b[k=v].c` → steps; a config check has refused anything else (`pathProblem`). */
export function compilePath(text: string): Path {
  return text.split('.').map((part) => {
    const m = /^([^[\]=]+)\[([^[\]=]+)=([^[\]]*)\]$/.exec(part);
    return m ? { key: m[1], field: m[2], value: m[3] } : { key: part };
  });
}

/** Why a usage or price path cannot be read, or undefined when it can. */
export function pathProblem(text: string): string | undefined {
  const ok = text.split('.').every((part) => /^[^[\]=.]+(\[[^[\]=]+=[^[\]]*\])?$/.test(part));
  return ok ? undefined : `\`${text}\` is not a dotted path (a step may pick an array element as \`name[field=value]\`)`;
}

/** Whether a stream event may carry usage: it is one the paths name, or (they name none) its text has a usage field. */
export function mayCarryUsage(paths: CompiledUsagePaths, name: string | undefined, data: string): boolean {
  return paths.events.size ? Boolean(name && paths.events.has(name)) : paths.keys.some((k) => data.includes(k));
}

/** The usage an answer (or one stream event) reports, each count merged over what earlier events reported. */
export function readUsage(paths: CompiledUsagePaths, answer: unknown, before?: Usage): Usage | undefined {
  let found: unknown;
  for (const p of paths.at) {
    const v = walk(answer, p);
    if (v && typeof v === 'object') { found = v; break; }
  }
  if (!found) return before;
  const prompt = sum(found, paths.prompt);
  const completion = sum(found, paths.completion);
  const details = readDetails(found, paths.details, before?.details);
  const seconds = paths.seconds.length ? secondsAt(found, paths.seconds) ?? before?.seconds : undefined;
  const units = paths.units.length ? sum(found, paths.units) ?? before?.units : undefined;
  if (prompt === undefined && completion === undefined && details === before?.details && seconds === before?.seconds && units === before?.units) return before;
  const usage: Usage = { prompt_tokens: prompt ?? before?.prompt_tokens ?? 0, completion_tokens: completion ?? before?.completion_tokens ?? 0 };
  if (details) usage.details = details;
  if (seconds !== undefined) usage.seconds = seconds;
  if (units !== undefined) usage.units = units;
  return usage;
}

function readDetails(o: unknown, wanted: [string, Path[]][], before: UsageDetails | undefined): UsageDetails | undefined {
  let out = before;
  for (const [name, list] of wanted) {
    for (const p of list) {
      const n = count(walk(o, p));
      if (n === undefined) continue;
      // A part of nothing is no part: most answers report zeros, and then carry no details at all.
      if (n === 0 && !before?.[name]) break;
      if (out === before) out = { ...before };
      out![name] = n;
      break;
    }
  }
  return out;
}

/** The value at a dotted path (no filters): where a dialect keeps its stream's whole answer. */
export function dig(v: unknown, path: string[]): unknown {
  let node = v;
  for (const k of path) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[k];
  }
  return node;
}

export function walk(v: unknown, path: Path): unknown {
  let node = v;
  for (const s of path) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[s.key];
    if (s.field !== undefined) node = Array.isArray(node) ? node.find((e) => e && typeof e === 'object' && String((e as Record<string, unknown>)[s.field!]) === s.value) : undefined;
  }
  return node;
}

/** The first of the paths holding a non-negative finite number of seconds (a fraction is kept). */
function secondsAt(o: unknown, paths: Path[]): number | undefined {
  for (const p of paths) {
    const n = walk(o, p);
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0 && n < 1e9) return n;
  }
  return undefined;
}

const count = (n: unknown) => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined);

/** The sum of the counts present as non-negative integers; undefined when none is. */
function sum(o: unknown, paths: Path[]): number | undefined {
  let total: number | undefined;
  for (const p of paths) {
    const n = count(walk(o, p));
    if (n !== undefined) total = (total ?? 0) + n;
  }
  return total;
}
