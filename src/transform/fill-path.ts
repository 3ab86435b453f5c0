// The one way `{name}` placeholders in a vendor path are filled: each value URL-encoded, an unknown name left empty.
// Paths are few (one per operation), so each is split once into its literal parts and names; a path without
// placeholders (most chat paths) is returned as it is, with no regex run per request.
const splits = new Map<string, string[]>();

export function fillPath(template: string, values: Record<string, string | undefined>): string {
  if (!template.includes('{')) return template;
  const parts = partsOf(template);
  let out = parts[0];
  for (let i = 1; i < parts.length; i += 2) out += encodeURIComponent(values[parts[i]] ?? '') + parts[i + 1];
  return out;
}

/** Literal, name, literal, name, …, literal: `split` with a capturing group keeps the names at the odd places. */
function partsOf(template: string): string[] {
  let parts = splits.get(template);
  if (!parts) {
    parts = template.split(/\{(\w+)\}/);
    if (splits.size > 10_000) splits.clear(); // paths come from config, but a task's recorded path may vary
    splits.set(template, parts);
  }
  return parts;
}
