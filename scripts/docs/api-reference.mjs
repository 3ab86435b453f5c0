// docs/clients/api-reference.md from the OpenAPI document the gateway serves at GET /openapi.json (src/openapi/),
// built here from the shipped config without a server: every route by family (the document's tags), with its auth,
// parameters, request body and its fields, and every answer it can give with the error codes behind each status.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { banner, code, slug, table } from './markdown.mjs';

const methods = ['get', 'post', 'put', 'patch', 'delete'];
const refName = (ref) => ref.split('/').at(-1);

export function renderApiReference(doc, schemasDir) {
  const components = doc.components.schemas;
  const schemes = doc.components.securitySchemes;

  /** A component as a link to the schema file it was made from, when there is one; else its name. */
  const schemaLink = (name) => {
    const file = `${name.split('.').slice(0, name.endsWith('.request') || name.endsWith('.response') ? 2 : 1).join('.')}.json`;
    return existsSync(join(schemasDir, 'api', file)) ? `[${code(name)}](../../schemas/api/${file})` : code(name);
  };

  const typeOf = (s) => {
    if (!s) return 'any';
    if (s.$ref) return code(refName(s.$ref));
    if (s.const !== undefined) return code(JSON.stringify(s.const));
    if (s.enum) return `one of ${s.enum.map((v) => code(JSON.stringify(v).replace(/^"|"$/g, ''))).join(', ')}`;
    const alts = s.anyOf ?? s.oneOf;
    if (alts) return alts.map(typeOf).join(' or ');
    const t = Array.isArray(s.type) ? s.type.join(' or ') : s.type;
    if (t === 'array') return `list of ${typeOf(s.items)}`;
    return t ?? 'any';
  };

  /** The body's top-level fields, from its component (an `allOf` of components merged, one level). */
  const fields = (name) => {
    const s = components[name];
    const parts = [s, ...(s.allOf ?? []).map((p) => (p.$ref ? components[refName(p.$ref)] : p))];
    const required = new Set(parts.flatMap((p) => p.required ?? []));
    const rows = parts.flatMap((p) => Object.entries(p.properties ?? {}))
      .map(([k, v]) => [`${code(k)}${required.has(k) ? ' (required)' : ''}`, typeOf(v), v.description ?? '']);
    return rows.length ? table(['field', 'type', 'description'], rows) : '';
  };

  const body = (op) => {
    const rb = op.requestBody;
    if (!rb) return [];
    const media = Object.entries(rb.content);
    const names = [...new Set(media.map(([, c]) => c.schema?.$ref && refName(c.schema.$ref)).filter(Boolean))];
    const out = [`**Request body** (${media.map(([m]) => code(m)).join(' or ')}${rb.required ? ', required' : ''}): ${names.map(schemaLink).join(', ') || 'any'}. ${rb.description ?? ''}`, ''];
    for (const n of names) { const f = fields(n); if (f) out.push(f, ''); }
    return out;
  };

  const answers = (op) => {
    const rows = Object.entries(op.responses ?? {}).map(([status, r]) => {
      const media = Object.entries(r.content ?? {}).map(([m, c]) => {
        const item = c['x-itemSchema']?.$ref ? `, each event ${code(refName(c['x-itemSchema'].$ref))}` : '';
        const schema = c.schema?.$ref ? code(refName(c.schema.$ref)) : c.schema?.type ? c.schema.type : '';
        return `${code(m)} ${schema}${item}`.trim();
      });
      const headers = Object.keys(r.headers ?? {}).map(code);
      return [status, r.description ?? '', [...media, ...(headers.length ? [`headers ${headers.join(', ')}`] : [])].join('; ')];
    });
    return rows.length ? [table(['status', 'when', 'answer'], rows), ''] : [];
  };

  const parameters = (op) => {
    const ps = op.parameters ?? [];
    if (!ps.length) return [];
    return [table(['parameter', 'in', 'type', 'description'], ps.map((p) => [`${code(p.name)}${p.required ? ' (required)' : ''}`, p.in, typeOf(p.schema), p.description ?? ''])), ''];
  };

  const auth = (op) => {
    const names = (op.security ?? []).flatMap((s) => Object.keys(s));
    if (!names.length) return 'none';
    return names.map((n) => {
      const s = schemes[n];
      return s.type === 'http' ? `${code(n)} (\`Authorization: Bearer\`)` : `${code(n)} (${s.in} ${code(s.name)})`;
    }).join(' or ');
  };

  const operation = (path, method, op) => {
    const out = [`### ${code(`${method.toUpperCase()} ${path}`)}`, ''];
    out.push(`${code(op.operationId)} · ${op.summary} · auth: ${auth(op)}`, '');
    if (op.description) out.push(op.description, '');
    out.push(...parameters(op), ...body(op), ...answers(op));
    for (const alt of op['x-switchyard-alternates'] ?? []) {
      out.push(`Also ${code(alt.operationId)} (${alt.summary}) on this path, for the models of its operation.`, '');
      out.push(...body(alt));
    }
    return out;
  };

  const byTag = new Map(doc.tags.map((t) => [t.name, []]));
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of methods) if (ops[method]) byTag.get(ops[method].tags[0]).push([path, method, ops[method]]);
  }

  const out = [
    '# API reference',
    '',
    banner("the OpenAPI document of the shipped config (GET /openapi.json; src/openapi/)"),
    '',
    'Every route the shipped config serves, by family, as the OpenAPI 3.1 document every instance answers at',
    '`GET /openapi.json` (no key) describes it; an instance on another config serves its own. Errors are',
    '[Shape A](errors.md#shapes) unless a route says otherwise; the codes are explained in [Errors](errors.md). The',
    '[families](README.md) pages say how each behaves, with examples.',
    '',
    '## Authentication',
    '',
    table(['scheme', 'how', 'what'], Object.entries(schemes).map(([n, s]) => [code(n), s.type === 'http' ? '`Authorization: Bearer <key>`' : `${s.in} ${code(s.name)}`, s.description ?? ''])),
    '',
    '## Families',
    '',
    table(['family', 'routes', 'what'], doc.tags.map((t) => [`[${t.name}](#${slug(t.name)})`, String(byTag.get(t.name).length), t.description])),
    '',
  ];
  for (const t of doc.tags) {
    out.push(`## ${t.name}`, '', t.description, '');
    for (const [path, method, op] of byTag.get(t.name)) out.push(...operation(path, method, op));
  }
  return `${out.map((l) => l.replace(/[ \t]+$/, '')).join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

