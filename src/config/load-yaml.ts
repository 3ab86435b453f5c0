// Reads a YAML file and keeps enough of its syntax tree to point a finding at a line.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import type { Diagnostic } from './diagnostics.js';

type Parsed = { doc: Document.Parsed; lines: LineCounter };

// A reload, and every check in a process, reads the same files again: a text's syntax tree is kept and each load
// makes its own data from it (toJS), so no load sees another's. The cost of a cold parse is most of a reload's.
const kept = new Map<string, Parsed>();
const keptMax = 32;

function parsed(text: string): Parsed {
  let p = kept.get(text);
  if (!p) {
    const lines = new LineCounter();
    // `merge` enables `<<: *anchor`, which lets an operation reuse another's slots.
    p = { doc: parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, merge: true }), lines };
    if (kept.size >= keptMax) kept.delete(kept.keys().next().value!);
    kept.set(text, p);
  }
  return p;
}

export interface YamlFile {
  name: string;
  data: unknown;
  /** Line and column of the node at a JSON pointer, or of its nearest existing parent. */
  locate(pointer: string): { line?: number; col?: number };
}

export function loadYaml(path: string, diags: Diagnostic[]): YamlFile | undefined {
  const name = basename(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    diags.push({ level: 'error', file: name, path: '', message: `cannot read file: ${(err as Error).message}` });
    return undefined;
  }
  const { doc, lines } = parsed(text);
  // Later syntax errors are mostly echoes of the first ones.
  for (const e of doc.errors.slice(0, 3)) {
    const pos = lines.linePos(e.pos[0]);
    diags.push({ level: 'error', file: name, path: '', line: pos.line, col: pos.col, message: `YAML syntax: ${e.message.split('\n')[0]}` });
  }
  if (doc.errors.length) return undefined;
  const locate = (pointer: string) => {
    let parts = pointer.split('/').slice(1).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    while (parts.length) {
      const node = doc.getIn(parts, true);
      if (isNode(node) && node.range) return lines.linePos(node.range[0]);
      parts = parts.slice(0, -1);
    }
    return {};
  };
  return { name, data: doc.toJS({ maxAliasCount: 1000 }), locate };
}
