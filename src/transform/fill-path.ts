// The one way `{name}` placeholders in a vendor path are filled: each value URL-encoded, an unknown name left empty.
export function fillPath(template: string, values: Record<string, string | undefined>): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? ''));
}
