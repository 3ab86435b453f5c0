// A built-in's arguments checked without jsonata's validate() where that would hand them back unchanged: one
// argument per parameter, each of exactly its parameter's type (an array where an array is expected, with items of
// its item type). validate() builds a type string and runs a regex on every call; anything less plain still goes to it.

const classes: Record<string, string> = { s: 'sm', n: 'nm', b: 'bm', l: 'lm', o: 'om', a: 'am', f: 'f', j: 'asnblom', x: 'asnblfom' };

/** getSymbol() of jsonata's signatures. */
export function symbolOf(v: unknown): string {
  if (typeof v === 'function') return 'f';
  if (v !== null && typeof v === 'object' && ((v as Record<string, unknown>)._jsonata_function === true || (v as Record<string, unknown>)._jsonata_lambda === true)) return 'f';
  switch (typeof v) {
    case 'string': return 's';
    case 'number': return 'n';
    case 'boolean': return 'b';
    case 'object': return v === null ? 'l' : Array.isArray(v) ? 'a' : 'o';
    default: return 'm';
  }
}

interface Param { accepts: string; items?: string }

/** The test, or undefined when the signature has parameters this shortcut does not read (`+`, function types). */
export function plainArguments(definition: string): ((args: unknown[]) => boolean) | undefined {
  const body = definition.slice(1, definition.indexOf(':') >= 0 ? definition.indexOf(':') : definition.length - 1);
  const params: Param[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '?' || c === '-') continue;
    if (c === '+') return undefined;
    if (c === '(') {
      const end = body.indexOf(')', i);
      const choice = body.slice(i + 1, end);
      if (choice.includes('<')) return undefined;
      params.push({ accepts: choice.split('').map((t) => classes[t] ?? '').join('') + 'm' });
      i = end;
      continue;
    }
    if (c === '<') {
      const end = body.indexOf('>', i);
      const last = params[params.length - 1];
      if (!last || last.accepts !== classes.a || end !== i + 2) return undefined;
      last.items = body[i + 1];
      i = end;
      continue;
    }
    if (!classes[c]) return undefined;
    params.push({ accepts: classes[c] });
  }
  return (args) => {
    if (args.length !== params.length) return false;
    for (let i = 0; i < params.length; i++) {
      const s = symbolOf(args[i]);
      if (!params[i].accepts.includes(s)) return false;
      const items = params[i].items;
      if (items && s === 'a') for (const x of args[i] as unknown[]) if (symbolOf(x) !== items) return false;
    }
    return true;
  };
}
