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
 * five fragments, else `tool_arg=KEY:VALUE` as one argument, else ARG_FRAGMENTS. An agent's own tool (a shell, a file
 * reader) needs its own arguments to run.
 */
export function toolArgFragments(d: Directives): string[] {
  const args = d.tool_args ? Buffer.from(d.tool_args, 'base64url').toString('utf8') : undefined;
  if (!args || !jsonObject(args)) return oneArgFragments(d.tool_arg);
  const size = Math.ceil(args.length / 5);
  return Array.from({ length: 5 }, (_, i) => args.slice(i * size, (i + 1) * size));
}

/**
 * The same arguments as one object, for a vendor that sends a call whole (Gemini's `functionCall.args`): one directive
 * string makes the same call on every simulator.
 */
export function toolArgs(d: Directives): Record<string, unknown> {
  return JSON.parse(toolArgFragments(d).join('')) as Record<string, unknown>;
}

/** `tool_arg=KEY:VALUE`: still 5 fragments. */
function oneArgFragments(arg: string | undefined): string[] {
  const colon = arg?.indexOf(':') ?? -1;
  if (!arg || colon < 1) return ARG_FRAGMENTS;
  const quoted = (v: string) => JSON.stringify(v).slice(1, -1);
  return ['{"', quoted(arg.slice(0, colon)), '":"', quoted(arg.slice(colon + 1)), '"}'];
}

/**
 * A directive value holding base64url of a JSON object (`tool_args=`, `usage=`): JSON needs spaces, quotes and brackets
 * that a `[sim …]` directive cannot carry. Undefined when absent or not a JSON object.
 */
export function b64JsonDirective(d: Directives, key: string): Record<string, unknown> | undefined {
  return d[key] ? jsonObject(Buffer.from(d[key], 'base64url').toString('utf8')) : undefined;
}

function jsonObject(s: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
