// Policy `openapi`: the OpenAPI document of the running config, built once per config (the first request after a
// load or reload) and answered from memory after that.
import type { Runtime } from '../config/runtime.js';
import type { Exchange } from '../pipeline/exchange.js';
import type { PolicyOf } from '../pipeline/policy.js';
import { buildDocument } from './document.js';

// Keyed by the Runtime object: a reload makes a new one, and the old document goes with the old config.
const built = new WeakMap<Runtime, Promise<Buffer>>();

export function openapiDocument(runtime: Runtime, policyOf: PolicyOf): Promise<Buffer> {
  let doc = built.get(runtime);
  if (!doc) {
    doc = buildDocument(runtime, policyOf).then((d) => Buffer.from(JSON.stringify(d)));
    // A failed build is not kept: the next request tries again (and fails the same way, visibly, as a 500).
    doc.catch(() => built.delete(runtime));
    built.set(runtime, doc);
  }
  return doc;
}

export async function serveOpenApi(ex: Exchange, policyOf: PolicyOf): Promise<void> {
  const body = await openapiDocument(ex.g.runtime, policyOf);
  ex.res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  ex.res.end(body);
}
