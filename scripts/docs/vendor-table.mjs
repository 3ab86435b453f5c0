// The README's vendor table, from vendors/*.yaml: each vendor's name, file, a few of its models and the variables that
// turn it on, in the order deploy/config/channels.yaml lists their channels. The full table, with prices, routes and
// where to get each key, is docs/operators/vendors.md.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { code, table } from './markdown.mjs';

export const begin = '<!-- vendor-table: generated from vendors/*.yaml by scripts/gen-docs.mjs (npm run gen:docs) -->';
export const end = '<!-- /vendor-table -->';

export function renderVendorTable(root) {
  const files = readdirSync(join(root, 'vendors')).filter((f) => f.endsWith('.yaml'));
  const vendors = files.map((f) => ({ file: f, name: f.replace(/\.yaml$/, ''), ...parse(readFileSync(join(root, 'vendors', f), 'utf8')) }));
  const channels = parse(readFileSync(join(root, 'deploy/config/channels.yaml'), 'utf8')).channels ?? [];
  const order = channels.flatMap((c) => [c.extends].flat());
  const rank = (v) => (order.includes(v.name) ? order.indexOf(v.name) : order.length);
  vendors.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  const rows = vendors.map((v) => {
    const models = Object.keys(v.models);
    const shown = models.slice(0, 3).map(code).join(', ') + (models.length > 3 ? `, … (${models.length})` : '');
    return [v.vendor, `[${code(`vendors/${v.file}`)}](vendors/${v.file})`, shown, Object.keys(v.env).map(code).join(', ')];
  });
  return `${begin}\n${table(['vendor', 'file', 'models', 'variables'], rows)}\n${end}`;
}

/** The README with its table replaced (the markers stay). */
export function withVendorTable(readme, root) {
  const from = readme.indexOf(begin);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error('README.md has no vendor-table markers');
  return readme.slice(0, from) + renderVendorTable(root) + readme.slice(to + end.length);
}
