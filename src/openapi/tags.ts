// The family a route belongs to, as the document's tag: read from the route's data (its policy, then the resource
// its path names), first rule that matches. A path word no rule knows is a vendor's own format.
import type { CompiledRoute } from '../config/runtime.js';
import type { PolicyOf } from '../pipeline/policy.js';

export interface Tag { name: string; description: string }

interface Rule extends Tag { when: (r: CompiledRoute, resource: string, policyOf: PolicyOf) => boolean }

const rules: Rule[] = [
  { name: 'chat', description: 'Chat completions in the unified format, JSON or a stream of events.', when: (_r, w) => w === 'chat' },
  { name: 'responses', description: 'The Responses format, translated to any chat model; answers kept per owner.', when: (_r, w) => w === 'responses' },
  { name: 'messages', description: 'The Messages format, translated to any chat model.', when: (_r, w) => w === 'messages' },
  { name: 'embeddings', description: 'Embeddings, billed by the usage the vendor reports.', when: (_r, w) => w === 'embeddings' },
  { name: 'rerank', description: 'Documents ordered by relevance to a query, on any reranker; priced per search or per token.', when: (_r, w) => w === 'rerank' },
  { name: 'moderations', description: 'Moderations in OpenAI\'s format; free at the vendor, charged 0.', when: (_r, w) => w === 'moderations' },
  { name: 'models', description: 'The models the calling token may use.', when: (r) => r.policy === 'models' },
  { name: 'images', description: 'Image generation and edits.', when: (_r, w) => w === 'images' },
  { name: 'files', description: 'The caller\'s files: batch input files checked line by line and kept at the vendor that runs them, batch output.', when: (r, w) => w === 'files' || r.policy === 'files' },
  { name: 'batches', description: 'Batches on the vendors\' Batch APIs: reserved from their input files, charged from their output at the batch price.', when: (_r, w) => w === 'batches' },
  { name: 'video', description: 'Unified video tasks: submit, query, list, download, delete, remix.', when: (_r, w) => w === 'video' || w === 'videos' },
  { name: 'image-art', description: 'The image-art task family, in its own format and error envelope.', when: (_r, w) => w === 'art' },
  { name: 'music', description: 'Music tasks, in the music wrapper\'s format and error envelope.', when: (_r, w) => w === 'music' },
  { name: 'billing', description: 'A token holder\'s balance and spending, in the dashboard billing shape.', when: (r) => r.policy === 'billing' },
  { name: 'admin', description: 'The operator\'s API and its console page; they exist only while SWITCHYARD_ADMIN_KEY is set.', when: (r) => r.policy === 'admin' || r.policy === 'console' },
  { name: 'console users', description: 'The console\'s users: a password set from the operator\'s invite, a session cookie, and their own wallet, tokens, usage and request log (another user\'s ids are 404). Only while SWITCHYARD_ADMIN_KEY is set.', when: (r) => r.policy === 'account' },
  { name: 'operations', description: 'About the gateway itself: liveness, readiness, metrics, this document.', when: (r, _w, policyOf) => policyOf(r).kind === 'open' },
  { name: 'vendor formats', description: 'Vendors\' own request formats, relayed or mapped to their tasks.', when: () => true },
];

/** The first word of the path that is not a version (`v1`, `v1beta`): what the route is about. */
function resourceOf(path: string): string {
  return path.split('/').filter(Boolean).find((s) => !/^v\d+[a-z]*\d*$/.test(s))?.split(/[:{]/)[0] ?? '';
}

export function tagOf(route: CompiledRoute, policyOf: PolicyOf): Tag {
  const resource = resourceOf(route.path);
  // Gateway-own policies first, whatever their path says (e.g. /v1/dashboard/billing, /admin/usage).
  const own = rules.filter((r) => ['models', 'billing', 'admin', 'console users', 'operations'].includes(r.name)).find((r) => r.when(route, resource, policyOf));
  const rule = own ?? rules.find((r) => r.when(route, resource, policyOf))!;
  return { name: rule.name, description: rule.description };
}

/** The tags in use, in the order of the rules. */
export function tagsOf(routes: CompiledRoute[], policyOf: PolicyOf): Tag[] {
  const used = new Set(routes.map((r) => tagOf(r, policyOf).name));
  return rules.filter((r) => used.has(r.name)).map(({ name, description }) => ({ name, description }));
}
