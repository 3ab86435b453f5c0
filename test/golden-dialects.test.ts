// Golden fixtures for every dialect translation of the shipped config, both directions, streams included:
//
//   test/golden/dialects/<dialect>/<slot>.<case>.json
//     client.request · client.response · client.conversation · vendor.request · vendor.response · error
//         { "bindings": {...}, "input": <value>, "output": <expected>, "note"?: "..." }
//     client.stream · vendor.stream
//         { "bindings": {...}, "input": [{"event"?, "data"}...], "output": [{"event"?, "data"}...],
//           "fail"?: {"message", "code"}, "result"?: <the whole answer the stream amounts to>, "note"?: "..." }
//         The input events run through the stream transform in order, then its end hook (or, with "fail", its error
//         hook); "output" is every event it emitted.
//
// Unified values are checked against their schemas: what a client side makes of a request must be a valid unified
// chat request (schemas/api/chat-completions.request.json); what a vendor side makes of an answer or an event must be
// a chat completion or chunk (schemas/transform/). The `$recall` binding is given as an object of stored items by id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadRuntime, projectRoot, schemaRegistry } from '../src/config/load-config.js';
import type { CompiledDialect } from '../src/config/runtime.js';
import type { Transform } from '../src/transform/compile-transform.js';
import { StreamTransformer, type CompiledStream, type StreamEvent } from '../src/transform/stream-transform.js';

const dir = join(projectRoot, 'test', 'golden', 'dialects');

interface SlotSpec { bindings: string[]; inputSchema?: string; outputSchema?: string; stream?: boolean; emptyInput?: boolean }

const specs: Record<string, SlotSpec> = {
  'client.request': { bindings: ['model', 'previous', 'recall'], outputSchema: 'chat-completions.request.json' },
  'client.response': { bindings: ['request', 'model', 'id', 'created'], inputSchema: 'chat-completion.json' },
  'client.stream': { bindings: ['request', 'model', 'id', 'created'], inputSchema: 'chat-chunk.json', stream: true },
  'client.conversation': { bindings: ['request', 'response', 'previous'] },
  'vendor.request': { bindings: ['model', 'stream', 'max_output_tokens'], inputSchema: 'chat-completions.request.json', outputSchema: 'vendor-request.json' },
  'vendor.response': { bindings: ['model', 'created'], outputSchema: 'chat-completion.json' },
  'vendor.stream': { bindings: ['model', 'created'], outputSchema: 'chat-chunk.json', stream: true },
  error: { bindings: ['status', 'code', 'message', 'type'], outputSchema: 'error-answer.json', emptyInput: true },
};

function slotsOf(d: CompiledDialect): Record<string, Transform | CompiledStream | undefined> {
  return {
    'client.request': d.client?.request, 'client.response': d.client?.response, 'client.stream': d.client?.stream,
    'client.conversation': d.client?.conversation, 'vendor.request': d.vendor?.request, 'vendor.response': d.vendor?.response,
    'vendor.stream': d.vendor?.stream, error: d.error,
  };
}

const normalise = (v: unknown): unknown => (v === undefined ? null : JSON.parse(JSON.stringify(v)) ?? null);

function slotOfFile(file: string): string | undefined {
  const names = Object.keys(specs).sort((a, b) => b.length - a.length);
  return names.find((s) => file.startsWith(`${s}.`) && file.endsWith('.json') && file.length > s.length + 6);
}

/** Bindings as the engine passes them: `recall` becomes the store lookup it stands for. */
function engineBindings(b: Record<string, unknown>): Record<string, unknown> {
  if (!b.recall) return b;
  const items = b.recall as Record<string, unknown>;
  return { ...b, recall: async (id: unknown) => (typeof id === 'string' ? items[id] : undefined) };
}

async function runStream(spec: CompiledStream, fx: Record<string, any>): Promise<{ events: StreamEvent[]; result: unknown }> {
  const t = new StreamTransformer(spec, fx.bindings);
  let events: StreamEvent[] = [];
  for (const e of fx.input as StreamEvent[]) events = events.concat(await t.push(e.data, e.event));
  events = events.concat(fx.fail ? await t.fail(fx.fail.message, fx.fail.code) : await t.end());
  return { events, result: t.result };
}

test('golden fixtures: every dialect translation of the shipped config', async (t) => {
  const env = { ...process.env };
  delete env.OPENAI_API_KEY;
  const { runtime } = loadRuntime(projectRoot, env);
  const registry = schemaRegistry(projectRoot);
  const dialects = new Map<string, CompiledDialect>();
  for (const r of runtime.routes) if (r.dialect) dialects.set(r.dialect.name, r.dialect);
  for (const c of runtime.channels) for (const op of c.operations.values()) if (op.dialect) dialects.set(op.dialect.name, op.dialect);
  const validate = (schema: string, v: unknown, what: string) => {
    const fn = registry.get(schema);
    assert.ok(fn(v), `${what} does not match ${schema}: ${registry.ajv.errorsText(fn.errors, { dataVar: what })}`);
  };

  await t.test('coverage: every slot of every dialect in use has a fixture, and every fixture a slot', () => {
    const problems: string[] = [];
    for (const [name, d] of dialects) {
      const files = existsSync(join(dir, name)) ? readdirSync(join(dir, name)) : [];
      for (const [slot, tr] of Object.entries(slotsOf(d))) {
        if (tr && !files.some((f) => slotOfFile(f) === slot)) problems.push(`missing: test/golden/dialects/${name}/${slot}.<case>.json`);
      }
    }
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const d = dialects.get(name);
      for (const f of readdirSync(join(dir, name))) {
        const slot = slotOfFile(f);
        if (!d || !slot || !slotsOf(d)[slot]) problems.push(`stale or misnamed: test/golden/dialects/${name}/${f}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  for (const [name, d] of dialects) {
    const files = existsSync(join(dir, name)) ? readdirSync(join(dir, name)).sort() : [];
    for (const f of files) {
      const slot = slotOfFile(f);
      const tr = slot ? slotsOf(d)[slot] : undefined;
      if (!slot || !tr) continue;
      await t.test(`${name}/${f}`, async () => {
        const spec = specs[slot];
        const fx = JSON.parse(readFileSync(join(dir, name, f), 'utf8'));
        const foreign = Object.keys(fx.bindings ?? {}).filter((b) => !spec.bindings.includes(b));
        assert.deepEqual(foreign, [], `the engine passes this slot only ${spec.bindings.map((b) => `$${b}`).join(', ')}`);
        const bindings = engineBindings(fx.bindings ?? {});
        if (spec.emptyInput) assert.deepEqual(fx.input, {}, 'the engine runs this slot on {}');
        if (!spec.stream) {
          if (spec.inputSchema) validate(spec.inputSchema, fx.input, 'input');
          const actual = normalise(await (tr as Transform).run(fx.input, bindings));
          assert.deepStrictEqual(actual, fx.output);
          if (spec.outputSchema && actual !== null) validate(spec.outputSchema, actual, 'output');
          return;
        }
        assert.ok(Array.isArray(fx.input) && Array.isArray(fx.output), 'a stream fixture has arrays of events as input and output');
        if (spec.inputSchema) fx.input.forEach((e: StreamEvent, i: number) => validate(spec.inputSchema!, e.data, `input[${i}].data`));
        const { events, result } = await runStream(tr as CompiledStream, { ...fx, bindings });
        assert.deepStrictEqual(normalise(events), fx.output);
        if (spec.outputSchema) events.forEach((e, i) => validate(spec.outputSchema!, normalise(e.data), `output[${i}].data`));
        if ('result' in fx) assert.deepStrictEqual(normalise(result), fx.result);
      });
    }
  }
});
