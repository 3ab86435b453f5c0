// Resolves ${env:NAME} and ${env:NAME:-default} inside config strings.
const ref = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface EnvResult<T> { value: T; missing: { pointer: string; name: string }[] }

/** Returns a deep copy with references replaced; unset names without a default are reported. */
export function resolveEnv<T>(input: T, env: NodeJS.ProcessEnv, pointer = ''): EnvResult<T> {
  const missing: EnvResult<T>['missing'] = [];
  const walk = (v: unknown, at: string): unknown => {
    if (typeof v === 'string') {
      return v.replace(ref, (_m, name: string, dflt: string | undefined) => {
        const got = env[name];
        if (got !== undefined && got !== '') return got;
        if (dflt !== undefined) return dflt;
        missing.push({ pointer: at, name });
        return '';
      });
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${at}/${i}`));
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, `${at}/${k}`)]));
    }
    return v;
  };
  return { value: walk(input, pointer) as T, missing };
}
