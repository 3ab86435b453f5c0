// Every internal link of the README and docs/ leads somewhere: the file or directory exists in the repository, and an
// anchor (`page.md#section`, `#section`) names a heading of that page as GitHub renders it. Links to the web are
// counted, not fetched (the suite runs offline).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { docFiles, readDoc } from './helpers/doc-blocks.js';
import { anchorsOf, linksOf, slug } from './helpers/doc-links.js';
import { projectRoot } from '../src/config/load-config.js';

const files = docFiles();

test('GitHub anchors: punctuation dropped, code kept, spaces to hyphens', () => {
  assert.equal(slug('Prices: what the vendor bills, line by line'), 'prices-what-the-vendor-bills-line-by-line');
  assert.equal(slug('`check --probe`'), 'check---probe');
  assert.equal(slug('Several instances with Redis'), 'several-instances-with-redis');
  assert.equal(slug('The usage directive (every chat simulator)'), 'the-usage-directive-every-chat-simulator');
  assert.equal(slug('`vendors/<name>.yaml`'), 'vendorsnameyaml');
});

test('every internal link and anchor of the docs resolves', () => {
  const anchors = new Map(files.map((f) => [f, anchorsOf(f)]));
  const broken: string[] = [];
  let internal = 0;
  let withAnchor = 0;
  let external = 0;
  for (const file of files) {
    for (const link of linksOf(file)) {
      if (/^[a-z][a-z+.-]*:/i.test(link.target)) { external++; continue; }
      internal++;
      const [path, anchor] = link.target.split('#');
      const target = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
      const where = `${link.file}:${link.line} → ${link.target}`;
      if (relative(projectRoot, join(projectRoot, target)).startsWith('..')) { broken.push(`${where}: outside the repository`); continue; }
      if (!existsSync(join(projectRoot, target))) { broken.push(`${where}: no such file`); continue; }
      if (anchor === undefined) continue;
      withAnchor++;
      const known = anchors.get(target);
      if (!known) broken.push(`${where}: an anchor into a file that is not a doc page`);
      else if (!known.has(anchor)) broken.push(`${where}: no heading #${anchor}`);
    }
  }
  console.log(`doc links: ${internal} internal links checked (${withAnchor} with an anchor) on ${files.length} pages; ${external} links to the web not fetched`);
  assert.deepEqual(broken, []);
});

test('no page names a path of the machine it was written on', () => {
  for (const file of files) assert.doesNotMatch(readDoc(file), /(^|[\s(`'"])\/(work|tmp|home|root)\//m, file);
});
