// Markdown helpers shared by the generated references: table cells, and the anchors GitHub gives headings (the same
// rule test/helpers/doc-links.ts checks links against).

/** One table cell: on one line, pipes escaped. */
export const cell = (text) => String(text ?? '').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();

export const code = (text) => `\`${String(text).replace(/`/g, 'ˋ')}\``;

/** A table from a header row and rows of cells. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** GitHub's anchor for a heading's text (inline code keeps its text, punctuation goes, spaces become hyphens). */
export function slug(heading) {
  return heading.replace(/[*`]/g, '').trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

export const banner = (source) =>
  `<!-- Generated from ${source} by scripts/gen-docs.mjs. Do not edit: run \`npm run gen:docs\` (npm test fails when this page is stale). -->`;
