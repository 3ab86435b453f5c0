// Parses `[sim key=value ...]` directives out of prompt text; the gateway forwards bodies, not custom headers.

export type Directives = Record<string, string>;

export function parseDirectives(text: string): Directives {
  const out: Directives = {};
  for (const m of text.matchAll(/\[sim\s+([^\]]*)\]/g)) {
    for (const pair of m[1].split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq > 0) out[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return out;
}

/** A non-negative integer directive, or `fallback` when absent or garbled. */
export function intDirective(d: Directives, key: string, fallback: number): number;
export function intDirective(d: Directives, key: string): number | undefined;
export function intDirective(d: Directives, key: string, fallback?: number): number | undefined {
  const n = Number(d[key]);
  return d[key] !== undefined && Number.isInteger(n) && n >= 0 ? n : fallback;
}

export function flagDirective(d: Directives, key: string): boolean {
  return d[key] === '1' || d[key] === 'true';
}

/** Default tool-call arguments, in fixed fragments so a call's completion tokens are a known constant (5). */
export const ARG_FRAGMENTS = ['{"', 'location', '":"', 'Paris', '"}'];

/**
 * The arguments a directed tool call streams: `tool_args=` (base64url of the JSON, so it fits in a directive) cut into
 * five fragments, else ARG_FRAGMENTS. An agent's own tool (a shell) needs its own arguments to run.
 */
export function toolArgFragments(d: Directives): string[] {
  const args = d.tool_args ? Buffer.from(d.tool_args, 'base64url').toString('utf8') : undefined;
  if (!args || !isJsonObject(args)) return ARG_FRAGMENTS;
  const size = Math.ceil(args.length / 5);
  return Array.from({ length: 5 }, (_, i) => args.slice(i * size, (i + 1) * size));
}

function isJsonObject(s: string): boolean {
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}
