// Policy `console`: the console's page (the operator's over the admin API, a user's over their own things), and its
// few static files. Everything it loads comes from this install (its own files under console/, the chart library
// from node_modules): no CDN, and a policy that lets the page reach nothing but this origin. Files are read once, on
// first use: they are small and never change while the process runs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { projectRoot } from '../config/config-files.js';
import { GatewayError } from '../http/errors.js';
import type { Exchange, Matched } from '../pipeline/exchange.js';

interface Asset { body: Buffer; type: string; etag: string }

const js = 'text/javascript; charset=utf-8';
const css = 'text/css; charset=utf-8';

/** The only files served, by the name they are asked for ('' is the page): an allowlist, never a path. */
function sources(): Record<string, [string, string]> {
  const own = (f: string) => join(projectRoot, 'console', f);
  const uplot = join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist');
  return {
    '': [own('index.html'), 'text/html; charset=utf-8'],
    'console.js': [own('console.js'), js],
    'common.js': [own('common.js'), js],
    'operator.js': [own('operator.js'), js],
    'member.js': [own('member.js'), js],
    'request-log.js': [own('request-log.js'), js],
    'console.css': [own('console.css'), css],
    'uPlot.esm.js': [join(uplot, 'uPlot.esm.js'), js],
    'uPlot.min.css': [join(uplot, 'uPlot.min.css'), css],
  };
}

let assets: Map<string, Asset> | undefined;

function load(): Map<string, Asset> {
  assets ??= new Map(Object.entries(sources()).map(([name, [file, type]]) => {
    const body = readFileSync(file);
    return [name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` }];
  }));
  return assets;
}

// The page may load its own files and call the admin API on this origin, and nothing else: no inline script, no
// framing, no form posts elsewhere.
const headers = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

export function serveConsole(ex: Exchange, m: Matched): void {
  const a = load().get(m.params.asset ?? '');
  if (!a) throw new GatewayError('not_found', 'No such console file');
  const page = m.params.asset === undefined;
  if (!page && ex.req.headers['if-none-match'] === a.etag) {
    ex.res.writeHead(304, { ...headers, etag: a.etag });
    ex.res.end();
    return;
  }
  ex.res.writeHead(200, {
    ...headers, 'content-type': a.type, 'content-length': a.body.length,
    // The page is fetched anew each time (it names no secret, but a stale one may call an API that changed).
    'cache-control': page ? 'no-store' : 'no-cache', ...(!page && { etag: a.etag }),
  });
  ex.res.end(a.body);
}
