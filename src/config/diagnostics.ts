// Config findings with their file, line and path, printed by `switchyard check` and at start.
export interface Diagnostic {
  level: 'error' | 'warning';
  file: string;
  path: string; // JSON pointer inside the file, '' for the whole file
  line?: number;
  col?: number;
  message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line ? `${d.file}:${d.line}:${d.col ?? 1}` : d.file;
  return `${d.level}: ${where} ${d.path || '/'}: ${d.message}`;
}

export class ConfigError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.filter((d) => d.level === 'error').map(formatDiagnostic).join('\n'));
  }
}

/** '/messages/0/role' → 'messages[0].role', the way clients name fields. */
export function pointerToField(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}
