// Links and anchors of a Markdown page, as GitHub renders them: the links outside code, and the anchor each heading
// gets (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens, repeats numbered).
import { blocksOf, readDoc } from './doc-blocks.js';

export interface Link { file: string; line: number; target: string }

/** The page's text with fenced blocks and inline code blanked out (kept as lines, so line numbers hold). */
function prose(file: string, source: string, keepInlineCode = false): string[] {
  const lines = source.split('\n');
  for (const b of blocksOf(file, source)) {
    const n = b.text.split('\n').length; // body lines + the closing fence
    for (let i = b.line - 1; i < Math.min(lines.length, b.line + n); i++) lines[i] = '';
  }
  return keepInlineCode ? lines : lines.map((l) => l.replace(/(`+)[^`]*?\1/g, ''));
}

export function linksOf(file: string, source = readDoc(file)): Link[] {
  const out: Link[] = [];
  prose(file, source).forEach((line, i) => {
    for (const m of line.matchAll(/!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ file, line: i + 1, target: m[1] });
    for (const m of line.matchAll(/<a\s+[^>]*href="([^"]+)"/g)) out.push({ file, line: i + 1, target: m[1] });
  });
  return out;
}

/** GitHub's anchor for a heading's text. */
export function slug(heading: string): string {
  const text = heading
    .split(/(`[^`]*`)/) // inside code, `<name>` is text; outside, a tag
    .map((part, i) => (i % 2 ? part : part.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '')))
    .join('')
    .replace(/[*`]/g, '');
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a page has: its headings' (numbered on repeats, as GitHub does) and explicit `<a id>`/`<a name>`. */
export function anchorsOf(file: string, source = readDoc(file)): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(file, source, true)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n ? `${base}-${n}` : base);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}
