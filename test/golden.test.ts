// Golden fixtures: every JSONata slot of every shipped channel and route, run on recorded inputs and compared with the
// expected outputs, which are also checked against the slot's output schema in schemas/transform/.
//
//   test/golden/vendors/<vendor>/<operation>/<slot>.<case>.json   a vendor file's slots (vendors/<vendor>.yaml): request,
//                                                              response, chunk, path_expr, poll.request, poll.response,
//                                                              reconcile.path_expr, reconcile.response, content.resolve
//   test/golden/<channel id>/<operation>/<slot>.<case>.json   the same slots of an operation a channel defines itself
//   test/golden/routes/<route id>/<slot>.<case>.json           model_expr, answer (a task's, a count_tokens route's, or a
//                                                              models route's), error_answer, list_answer
//   (test/golden/dialects/ belongs to golden-dialects.test.ts, test/golden/agents/ to the agent tests)
//
// Each file is { "bindings": {...}, "input": <value>, "output": <expected>, "note"?: "<why this case>" }. The transform
// runs on `input` with `bindings` as its $variables (only the ones the engine passes to that slot are accepted);
// `"output": null` asserts that it returns nothing. A slot without a fixture fails the coverage check, a fixture for a
// slot that does not exist (or that the engine never runs) fails as stale: a new vendor needs fixtures, not test code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { loadRuntime, projectRoot, schemaRegistry } from '../src/config/load-config.js';
import { extendsOf } from '../src/config/vendor-files.js';
import type { CompiledOperation, CompiledRoute, Runtime } from '../src/config/runtime.js';
import type { Transform } from '../src/transform/compile-transform.js';
import { publicView, type TaskRecord } from '../src/records/task-record.js';

const goldenDir = join(projectRoot, 'test', 'golden');

/** What the engine does with one slot: the output schema, the bindings it passes, and what it feeds it. */
interface SlotSpec {
  schema: string;
  bindings: string[];
  /** The output may be an array of outputs (several chunks, a batch poll), each validated on its own. */
  many?: boolean;
  /** What the engine always passes as input: `{}`, a task's public view, or the array of answers. */
  input?: 'empty' | 'view' | 'array';
}

interface Slot {
  key: string;
  transform: Transform;
  spec?: SlotSpec;
  /** Why the engine never runs this slot (no spec). */
  unused?: string;
  /** A batch poll's `response`: every result must name its upstream_id, or the engine cannot tell whose it is. */
  batch?: boolean;
}

const pollBindings = ['upstream_id', 'upstream_ids', 'model'];
const reconcileBindings = ['task_id', 'path', 'model'];

// How each policy runs an operation's slots (src/policies/*.ts, src/tasks/*.ts); a slot a policy never runs has no spec.
const operationSlots: Record<string, Record<string, SlotSpec>> = {
  chat: {
    request: { schema: 'vendor-request.json', bindings: ['model', 'stream'] },
    response: { schema: 'chat-completion.json', bindings: ['model'] },
    chunk: { schema: 'chat-chunk.json', bindings: ['model'], many: true },
  },
  json: {
    request: { schema: 'vendor-request.json', bindings: ['params', 'query', 'model'] },
    path_expr: { schema: 'vendor-path.json', bindings: ['params', 'query', 'model'] },
    response: { schema: 'json-answer.json', bindings: ['params', 'query', 'model', 'upstream_model', 'request'] },
  },
  task: {
    request: { schema: 'vendor-request.json', bindings: ['model', 'task_id'] },
    path_expr: { schema: 'vendor-path.json', bindings: ['model', 'task_id'] },
    response: { schema: 'task-submit-result.json', bindings: ['model', 'task_id', 'path', 'request', 'operation'] },
    'poll.request': { schema: 'vendor-request.json', bindings: pollBindings, input: 'empty' },
    'poll.response': { schema: 'poll-result.json', bindings: [...pollBindings, 'http_status'], many: true },
    'reconcile.path_expr': { schema: 'vendor-path.json', bindings: reconcileBindings, input: 'empty' },
    'reconcile.response': { schema: 'reconcile-result.json', bindings: [...reconcileBindings, 'http_status'] },
    'content.resolve': { schema: 'content-url.json', bindings: [] },
  },
  relay: {
    response: { schema: 'json-answer.json', bindings: ['task_id'] },
  },
  files: {
    request: { schema: 'vendor-request.json', bindings: ['model'] },
    response: { schema: 'file-stored.json', bindings: [] },
  },
  passthrough: {},
};

const routeSlots: Record<string, SlotSpec> = {
  model_expr: { schema: 'model-name.json', bindings: ['params', 'query'] },
  answer: { schema: 'task-answer.json', bindings: ['base_url'], input: 'view' },
  error_answer: { schema: 'error-answer.json', bindings: ['status', 'code', 'message', 'type'], input: 'empty' },
  list_answer: { schema: 'task-answer.json', bindings: [], input: 'array' },
};
// A `count_tokens` route's `answer` (src/policies/count-tokens.ts) shares the slot name with a task route's.
const countAnswer: SlotSpec = { schema: 'json-answer.json', bindings: ['tokens', 'model'], input: 'empty' };
// A `models` route's `answer` (src/policies/models.ts): the list ($models) or one model ($model) in a dialect's shape.
const modelsAnswer: SlotSpec = { schema: 'json-answer.json', bindings: ['models', 'model'], input: 'empty' };

const channelSlotNames = ['request', 'response', 'chunk', 'path_expr', 'poll.request', 'poll.response', 'reconcile.path_expr', 'reconcile.response', 'content.resolve'];
const routeSlotNames = Object.keys(routeSlots);

function transformsOf(op: CompiledOperation): Record<string, Transform | undefined> {
  return {
    request: op.request, response: op.response, chunk: op.chunk, path_expr: op.pathExpr,
    'poll.request': op.poll?.request, 'poll.response': op.poll?.response,
    'reconcile.path_expr': op.reconcile?.pathExpr, 'reconcile.response': op.reconcile?.response,
    'content.resolve': op.contentResolve,
  };
}

/** Which policy runs an operation: the proxied routes naming it (a task record keeps its submit's operation). */
function roleOf(rt: Runtime, operation: string): string | undefined {
  const role = (r: CompiledRoute): string | undefined =>
    r.policy === 'stream' ? 'chat' : r.policy === 'json' || r.policy === 'relay' ? 'json' : r.policy === 'passthrough' ? 'passthrough'
      : r.policy === 'task' && r.task?.action === 'submit' ? 'task' : r.policy === 'task' && r.task?.action === 'relay' ? 'relay'
        : r.policy === 'files' && r.action === 'upload' ? 'files' : undefined;
  const roles = new Set(rt.routes.filter((r) => r.operation === operation).map(role).filter((x): x is string => x !== undefined));
  if (roles.size > 1) throw new Error(`operation ${operation} is served by several policies (${[...roles].join(', ')}): its slots mean different things`);
  return [...roles][0];
}

type RawChannel = { id: string; extends?: string | string[]; operations?: Record<string, unknown> };

/**
 * Where an operation of a channel is defined, as a fixture directory: the channel itself (`<channel id>`), or the
 * last template it extends that defines it (`vendors/<vendor>` for a vendor file, `templates/<name>` otherwise).
 */
function sourceOf(configDir: string, channelId: string, operation: string): string {
  const file = parse(readFileSync(join(configDir, 'channels.yaml'), 'utf8'), { merge: true }) as { channels: RawChannel[]; templates?: Record<string, RawChannel> };
  const raw = file.channels.find((c) => c.id === channelId)!;
  if (raw.operations?.[operation]) return channelId;
  for (const name of extendsOf(raw).reverse()) {
    if (file.templates?.[name]) { if (file.templates[name].operations?.[operation]) return `templates/${name}`; continue; }
    const own = join(configDir, 'vendors', `${name}.yaml`);
    const path = existsSync(own) ? own : join(projectRoot, 'vendors', `${name}.yaml`);
    const vendor = parse(readFileSync(path, 'utf8'), { merge: true }) as { channel: RawChannel };
    if (vendor.channel.operations?.[operation]) return `vendors/${name}`;
  }
  throw new Error(`operation ${operation} of channel ${channelId} has no source`);
}

/** Every JSONata slot of the runtime, by fixture directory and slot name. */
function slotsOf(rt: Runtime, configDir: string, slots = new Map<string, Slot>()): Map<string, Slot> {
  for (const ch of rt.channels) {
    assert.ok(!['routes', 'vendors', 'templates', 'dialects'].includes(ch.id), `a channel named "${ch.id}" would share test/golden/${ch.id}/ with other fixtures`);
    for (const [name, op] of ch.operations) {
      const role = roleOf(rt, name);
      const source = sourceOf(configDir, ch.id, name);
      for (const [slot, transform] of Object.entries(transformsOf(op))) {
        if (!transform) continue;
        const key = `${source}/${name}/${slot}`;
        const spec = role ? operationSlots[role][slot] : undefined;
        const unused = spec ? undefined : `no route runs \`${slot}\` of operation ${name} (${role ? `policy ${role}` : 'no proxied route names it'})`;
        slots.set(key, { key, transform, spec, unused, batch: slot === 'poll.response' && Boolean(op.poll?.batch) });
      }
    }
  }
  for (const r of rt.routes) {
    // A dialect's error shape has its fixtures under test/golden/dialects/.
    const errorAnswer = r.errorAnswer === r.dialect?.error ? undefined : r.errorAnswer;
    const own: Record<string, Transform | undefined> = { model_expr: r.modelExpr, answer: r.task?.answer ?? r.answer, error_answer: errorAnswer, list_answer: r.task?.listAnswer };
    for (const [slot, transform] of Object.entries(own)) {
      const spec = slot === 'answer' && r.policy === 'count_tokens' ? countAnswer : slot === 'answer' && r.policy === 'models' ? modelsAnswer : routeSlots[slot];
      if (transform) slots.set(`routes/${r.id}/${slot}`, { key: `routes/${r.id}/${slot}`, transform, spec });
    }
  }
  return slots;
}

function jsonFiles(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(jsonFiles(p));
    else out.push(p);
  }
  return out;
}

/** `vendors/kling/video_generate/poll.response.failed.json` → slot key `vendors/kling/video_generate/poll.response`, or why not. */
function slotKeyOf(rel: string): { key?: string; problem?: string } {
  const nested = ['vendors', 'templates'].includes(rel.split('/')[0]);
  const parts = nested ? [rel.split('/').slice(0, 2).join('/'), ...rel.split('/').slice(2)] : rel.split('/');
  const file = parts.at(-1)!;
  const isRoute = parts[0] === 'routes';
  if (parts.length !== 3) return { problem: `a fixture lives at vendors/<vendor>/<operation>/<slot>.<case>.json, <channel id>/<operation>/<slot>.<case>.json or routes/<route id>/<slot>.<case>.json` };
  if (!file.endsWith('.json')) return { problem: 'only .json fixtures belong here' };
  const base = file.slice(0, -'.json'.length);
  const names = (isRoute ? routeSlotNames : channelSlotNames).slice().sort((a, b) => b.length - a.length);
  const slot = names.find((s) => base.startsWith(`${s}.`) && base.length > s.length + 1);
  if (!slot) return { problem: `file name must be <slot>.<case>.json with <slot> one of: ${(isRoute ? routeSlotNames : channelSlotNames).join(', ')}` };
  return { key: `${parts[0]}/${parts[1]}/${slot}` };
}

/** What reaches a client or vendor: JSON (jsonata sequences become plain arrays, nothing becomes null). */
const normalise = (v: unknown): unknown => (v === undefined ? null : JSON.parse(JSON.stringify(v)) ?? null);

interface Fixture { bindings: Record<string, unknown>; input: unknown; output: unknown; note?: string }

function readFixture(path: string): Fixture {
  const fx = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  assert.ok(fx && typeof fx === 'object' && !Array.isArray(fx), 'a fixture is a JSON object');
  const extra = Object.keys(fx).filter((k) => !['bindings', 'input', 'output', 'note'].includes(k));
  assert.deepEqual(extra, [], 'a fixture holds only bindings, input, output and note');
  assert.ok('input' in fx && 'output' in fx, 'a fixture needs "input" and "output" ("output": null when the transform returns nothing)');
  assert.ok(fx.bindings && typeof fx.bindings === 'object' && !Array.isArray(fx.bindings), '"bindings" is an object ({} when none)');
  assert.ok(fx.note === undefined || typeof fx.note === 'string', '"note" is a string');
  return fx as unknown as Fixture;
}

// The keys of a task's public view, which is all an `answer` ever reads.
const viewKeys = Object.keys(publicView({
  id: 't', family: 'f', route: 'r', operation: 'o', model: 'm', upstream_model: 'm', owner: { user: 'u', token: 't' }, group: 'g', channel: 'c',
  status: 'queued', progress: 0, created_at: 0, updated_at: 0, result_urls: [], quota: { reserved: 0, state: 'reserved' }, input: {}, vars: {}, polls: 0,
} satisfies TaskRecord)).sort();

test('golden fixtures: every JSONata slot of the shipped configs (the demo and deploy/config) and every vendor file', async (t) => {
  const env = { ...process.env };
  delete env.OPENAI_API_KEY; // a disabled channel compiles all the same
  const production = join(projectRoot, 'deploy', 'config');
  const slots = slotsOf(loadRuntime(production, env).runtime, production, slotsOf(loadRuntime(projectRoot, env).runtime, projectRoot));
  const registry = schemaRegistry(projectRoot);
  const files = jsonFiles(goldenDir).map((p) => relative(goldenDir, p).split(sep).join('/')).filter((f) => !f.startsWith('dialects/') && !f.startsWith('agents/'));
  const covered = new Set(files.map((f) => slotKeyOf(f).key).filter((k): k is string => k !== undefined));

  await t.test('coverage: every slot has a fixture, and the engine runs every slot', () => {
    const missing = [...slots.values()].filter((s) => !s.unused && !covered.has(s.key)).map((s) => `  test/golden/${s.key}.<case>.json`);
    const unused = [...slots.values()].filter((s) => s.unused).map((s) => `  ${s.key}: ${s.unused}`);
    const problems = [
      ...(missing.length ? [`slots without a golden fixture:\n${missing.join('\n')}`] : []),
      ...(unused.length ? [`slots the engine never runs (remove them, or serve the operation with a policy that runs them):\n${unused.join('\n')}`] : []),
    ];
    assert.equal(problems.length, 0, problems.join('\n'));
  });

  for (const rel of files) {
    await t.test(rel, async () => {
      const { key, problem } = slotKeyOf(rel);
      assert.ok(key, problem);
      const slot = slots.get(key);
      assert.ok(slot, `stale fixture: the shipped config has no \`${key.split('/').at(-1)}\` transform at ${key.split('/').slice(0, 2).join('/')}`);
      assert.ok(slot.spec, `${slot.unused}`);
      const spec = slot.spec;
      const fx = readFixture(join(goldenDir, rel));
      const foreign = Object.keys(fx.bindings).filter((b) => !spec.bindings.includes(b));
      assert.deepEqual(foreign, [], `the engine passes this slot only ${spec.bindings.length ? spec.bindings.map((b) => `$${b}`).join(', ') : 'no bindings'}`);
      if (spec.input === 'empty') assert.deepEqual(fx.input, {}, 'the engine runs this slot on {}');
      if (spec.input === 'array') assert.ok(Array.isArray(fx.input), 'the engine runs this slot on the array of answers');
      if (spec.input === 'view') {
        assert.ok(fx.input && typeof fx.input === 'object', 'the engine runs this slot on a task\'s public view');
        assert.deepEqual(Object.keys(fx.input).sort(), viewKeys, 'the input is a task\'s public view (src/records/task-record.ts publicView), with exactly its keys');
      }

      const actual = normalise(await slot.transform.run(fx.input, fx.bindings));
      assert.deepStrictEqual(actual, fx.output);
      if (actual === null) return; // nothing: no value reaches anyone
      const validate = registry.get(spec.schema);
      const items = spec.many && Array.isArray(actual) ? actual : [actual];
      items.forEach((item, i) => {
        const at = items === actual ? `output[${i}]` : 'output';
        assert.ok(validate(item), `${at} does not match schemas/transform/${spec.schema}: ${registry.ajv.errorsText(validate.errors, { dataVar: at })}`);
        if (slot.batch) {
          assert.ok((item as { upstream_id?: unknown }).upstream_id !== undefined, `${at}: a batch poll result must name its upstream_id`);
        }
      });
    });
  }
});
