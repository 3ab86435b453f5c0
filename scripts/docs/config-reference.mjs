// docs/operators/config-reference.md from schemas/config/*.schema.json: every file's keys and every definition's,
// nested objects flattened (`timeouts.connect_ms`), with type, default and description. The schemas are the source:
// a key is documented by its `description` there, and this page follows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { banner, cell, code, slug, table } from './markdown.mjs';

const files = [
  { schema: 'routes.schema.json', name: 'routes.yaml', what: 'the public routes, their policies and limits, the dialects and where answers carry usage' },
  { schema: 'channels.schema.json', name: 'channels.yaml', what: 'dispatch and billing settings, token groups, model prices, templates, the upstream channels, tasks and callbacks' },
  { schema: 'vendor.schema.json', name: 'vendors/<name>.yaml', what: 'one vendor, defined once: its channel template, models and list prices' },
  { schema: 'dialect.schema.json', name: 'dialects/<name>.yaml', what: 'one client format and its translations to and from the unified one' },
];

const heading = (file, def) => `${def} (${file})`;
const anchor = (file, def) => slug(heading(file, def));

/**
 * The default a key has: the schema's `default`, else the one its description states, in the forms the schemas use:
 * "(default 30 s)", "Default: …" opening a sentence, or "default" before a value ("default true", "default `1800`").
 */
export function defaultOf(s) {
  if (s.default !== undefined) return code(JSON.stringify(s.default));
  const d = s.description ?? '';
  if (/\bno default\b/i.test(d)) return 'none';
  const m = /\(default:? ([^()]*(?:\([^()]*\)[^()]*)*)\)/i.exec(d)
    ?? /(?:^|[.:;] )Default:? ((?:[^.;]|\.(?=\w))+)/.exec(d)
    ?? /\bdefault:? (`[^`]+`|-?\d+(?:[.,_]\d+)*(?: (?:s|ms|MiB|KiB|MB|days?|seconds?))?|true|false|unlimited)(?=[\s,.;)]|$)/i.exec(d);
  return m ? m[1].trim() : '';
}

export function renderConfigReference(schemasDir) {
  const schemas = Object.fromEntries(files.map((f) => [f.schema, JSON.parse(readFileSync(join(schemasDir, f.schema), 'utf8'))]));
  const fileOf = Object.fromEntries(files.map((f) => [f.schema, f.name]));

  /** A `$ref` as a link to its definition's section. */
  const refLink = (ref, from) => {
    const [doc, pointer] = ref.split('#');
    const schema = doc || from;
    const def = pointer.split('/').at(-1);
    return `[${def}](#${anchor(fileOf[schema], def)})`;
  };

  /** A key that only names a definition is described by that definition's first sentence. */
  const describeRef = (prop, from) => {
    const ref = prop.$ref ?? prop.items?.$ref ?? prop.additionalProperties?.$ref;
    if (!ref) return '';
    const [doc, pointer] = ref.split('#');
    const def = pointer.split('/').slice(1).reduce((o, k) => o?.[k], schemas[doc || from]);
    return /^[^]*?[.:](?=\s|$)/.exec(def?.description ?? '')?.[0] ?? def?.description ?? '';
  };

  /** A schema's type in words, with its bounds. */
  const typeOf = (s, from) => {
    if (s.$ref) return refLink(s.$ref, from);
    if (s.const !== undefined) return code(JSON.stringify(s.const));
    if (s.enum) return `one of ${s.enum.map((v) => code(JSON.stringify(v).replace(/^"|"$/g, ''))).join(', ')}`;
    const alts = s.anyOf ?? s.oneOf;
    if (alts) return alts.map((a) => typeOf(a, from)).join(' or ');
    const t = Array.isArray(s.type) ? s.type.join(' or ') : s.type;
    if (t === 'array') return `list of ${s.items ? typeOf(s.items, from) : 'any'}${bounds(s, 'minItems', 'maxItems', ' items')}`;
    if (t === 'object' || (!t && (s.properties || s.additionalProperties))) {
      if (s.properties) return 'object';
      if (s.additionalProperties && typeof s.additionalProperties === 'object') return `map of ${typeOf(s.additionalProperties, from)}`;
      return 'object';
    }
    return `${t ?? 'any'}${bounds(s, 'minimum', 'maximum', '')}${bounds(s, 'minLength', 'maxLength', ' characters')}${s.pattern ? `, matching ${code(s.pattern)}` : ''}`;
  };

  const bounds = (s, lo, hi, unit) => {
    if (s[lo] !== undefined && s[hi] !== undefined) return `, ${s[lo]}–${s[hi]}${unit}`;
    if (s[lo] !== undefined) return `, ≥ ${s[lo]}${unit}`;
    if (s[hi] !== undefined) return `, ≤ ${s[hi]}${unit}`;
    if (s.exclusiveMinimum !== undefined) return `, > ${s.exclusiveMinimum}`;
    return '';
  };

  /** Rows for an object's keys; keys of nested inline objects follow as `parent.key`. */
  const rows = (s, from, prefix = '') => {
    const out = [];
    const required = new Set(s.required ?? []);
    const entries = [...Object.entries(s.properties ?? {}), ...Object.entries(s.patternProperties ?? {}).map(([p, v]) => [`<${p}>`, v])];
    for (const [key, prop] of entries) {
      const name = `${prefix}${key}`;
      out.push([`${code(name)}${required.has(key) ? ' (required)' : ''}`, typeOf(prop, from), defaultOf(prop), prop.description ?? describeRef(prop, from)]);
      if (prop.properties || prop.patternProperties) out.push(...rows(prop, from, `${name}.`));
      const items = prop.items && !prop.items.$ref ? prop.items : undefined;
      if (items?.properties) out.push(...rows(items, from, `${name}[].`));
      const values = typeof prop.additionalProperties === 'object' && !prop.additionalProperties.$ref ? prop.additionalProperties : undefined;
      if (values?.properties) out.push(...rows(values, from, `${name}.<name>.`));
    }
    return out;
  };

  const section = (level, title, s, from) => {
    const parts = [`${'#'.repeat(level)} ${title}`, ''];
    if (s.description) parts.push(s.description, '');
    if (s.$ref) parts.push(`Everything a ${typeOf(s, from)} holds.`, '');
    const r = rows(s, from);
    if (r.length) parts.push(table(['key', 'type', 'default', 'description'], r), '');
    return parts.join('\n');
  };

  const out = [
    '# Configuration reference',
    '',
    banner('schemas/config/*.schema.json'),
    '',
    'Every key of every config file, from the JSON Schemas the gateway validates the files against (`npm run check`',
    'applies them, and editors that read `# yaml-language-server: $schema=…` complete and check keys as you type). How the',
    'files fit together and how to check them: [Configuration](configuration.md).',
    '',
    table(['file', 'schema', 'holds'], files.map((f) => [code(f.name), `[${f.schema}](../../schemas/config/${f.schema})`, f.what])),
    '',
  ];
  for (const f of files) {
    const s = schemas[f.schema];
    out.push(section(2, code(f.name), s, f.schema));
    for (const [def, d] of Object.entries(s.definitions ?? {})) out.push(section(3, heading(f.name, def), d, f.schema));
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
