// What a translation left out because the other side cannot take it (a hosted tool a chat vendor cannot run, an
// earlier turn's reasoning item): a dialect's request transform may say so under the reserved key `_dropped`
// ({ what: [names] }), which never reaches the vendor and goes to the access line as `dropped_<what>`.
import type { RequestContext } from '../pipeline/context.js';

type Body = Record<string, unknown>;

const KEY = '_dropped';
const WHAT = /^[a-z][a-z_]{0,23}$/;

/** The body without its `_dropped` note; the note's names are added to the request's (bounded: 4 kinds, 16 names each). */
export function takeDropped(ctx: RequestContext, body: Body): Body {
  if (!(KEY in body)) return body;
  const { [KEY]: note, ...rest } = body;
  if (note && typeof note === 'object' && !Array.isArray(note)) {
    for (const [what, names] of Object.entries(note as Record<string, unknown>)) {
      if (!WHAT.test(what) || !Array.isArray(names) || !names.length) continue;
      const seen = (ctx.dropped ??= {})[what] ?? [];
      if (!ctx.dropped[what] && Object.keys(ctx.dropped).length >= 4) continue;
      for (const n of names) if (typeof n === 'string' && seen.length < 16 && !seen.includes(n)) seen.push(n.slice(0, 64));
      ctx.dropped[what] = seen;
    }
  }
  return rest;
}

/** The access line's `dropped_<what>` fields. */
export function droppedFields(ctx: RequestContext): Record<string, string[]> | undefined {
  if (!ctx.dropped) return undefined;
  return Object.fromEntries(Object.entries(ctx.dropped).map(([what, names]) => [`dropped_${what}`, names]));
}
