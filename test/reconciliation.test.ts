// GET /admin/reconciliation end to end: Kling as the production config serves it, with two models priced other than
// Kling bills them (test/fixtures/reconciliation). A completed task whose vendor charge (Kling's `final_unit_deduction`
// × 140) differs from what the gateway charged is listed with its difference; one that matches is not; the model,
// channel and min_difference filters narrow the list; a bad min_difference is 400; and /admin/usage carries the vendors'
// own figure (`vendor_charged`) beside the charge.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, fixture, type Stack } from './helpers/stack.js';
import { simulatorEnv } from './helpers/production.js';
import { call, fastTasks } from './helpers/video.js';

const adminKey = 'adm-' + 'r'.repeat(40);
let stack: Stack;

/** The tasks of the test, by what they are; each is completed and settled before the tests read the lists. */
const tasks: Record<'v26std' | 'v26pro' | 'v16vip' | 'turbo', { id: string; charged: number; vendor: number }> = {} as never;

before(async () => {
  stack = await startStack({ configDir: fixture('reconciliation'), env: { SWITCHYARD_ADMIN_KEY: adminKey, SWITCHYARD_SIM_URL: 'http://127.0.0.1:1' }, envFor: simulatorEnv });
  fastTasks(stack);
  const plain = await stack.token({ quota: 100_000 });
  const vip = await stack.token({ group: 'vip', quota: 100_000 });
  // Kling's units (kling.ai/document-api/pricing/base/video): kling-v2-6 0.3 a second std, 0.5 pro; kling-v1-6 0.4 std;
  // kling-v2-5-turbo 0.3 std; 1 unit = $0.14 = 140 units. The fixture charges kling-v2-6 50 a second and kling-v1-6
  // 70; kling-v2-5-turbo keeps its list price, 42.
  const run = async (key: string, id: string, body: Record<string, unknown>) => {
    const sub = await call(stack, key, 'POST', '/v1/video/generations', { prompt: 'a fox [sim polls=1]', ...body });
    assert.equal(sub.status, 200, sub.text);
    for (let i = 0; i < 400; i++) {
      const closed = (await stack.gw.store.quota.entries(id)).find((e) => e.request === sub.json.id && e.kind !== 'reserve');
      if (closed) {
        assert.equal(closed.kind, 'settle');
        return sub.json.id as string;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`task ${sub.json.id} was not settled`);
  };
  tasks.v26std = { id: await run(plain.key, plain.id, { model: 'kling-v2-6' }), charged: 250, vendor: 210 };
  tasks.v26pro = { id: await run(plain.key, plain.id, { model: 'kling-v2-6', metadata: { mode: 'pro' } }), charged: 250, vendor: 350 };
  tasks.v16vip = { id: await run(vip.key, vip.id, { model: 'kling-v1-6' }), charged: 350, vendor: 280 };
  tasks.turbo = { id: await run(plain.key, plain.id, { model: 'kling-v2-5-turbo' }), charged: 210, vendor: 210 };
});
after(() => stack?.close());

const admin = (path: string) => call(stack, adminKey, 'GET', path);
const ids = (r: { json: { data: { id: string }[] } }) => r.json.data.map((row) => row.id);

test('a task whose vendor charged other than the gateway is listed with its difference, newest first; one that matches is not', async () => {
  const r = await admin('/admin/reconciliation');
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.object, 'list');
  assert.deepEqual(ids(r), [tasks.v16vip.id, tasks.v26pro.id, tasks.v26std.id], 'newest first; the matching kling-v2-5-turbo task is not listed');
  const byId = new Map(r.json.data.map((row: Record<string, unknown>) => [row.id, row]));
  for (const [key, want] of [['v26std', 'kling-v2-6'], ['v26pro', 'kling-v2-6'], ['v16vip', 'kling-v1-6']] as const) {
    const row = byId.get(tasks[key].id) as Record<string, any>;
    assert.equal(row.model, want);
    assert.equal(row.channel, key === 'v16vip' ? 'kling_b' : 'kling');
    assert.equal(row.charged, tasks[key].charged, key);
    assert.equal(row.reserved, tasks[key].charged, 'a per-second price reserves its charge');
    assert.equal(row.vendor_charged, tasks[key].vendor, key);
    assert.equal(row.difference, tasks[key].vendor - tasks[key].charged, key);
    assert.equal(Number(row.vendor_charge) * 140, tasks[key].vendor, 'Kling\'s own figure, in its units');
    assert.equal(row.vendor_unit, 140, 'units a Kling unit is worth');
  }
  assert.deepEqual([(byId.get(tasks.v26std.id) as any).difference, (byId.get(tasks.v26pro.id) as any).difference, (byId.get(tasks.v16vip.id) as any).difference], [-40, 100, -70]);
  assert.equal(r.json.has_more, false);
});

test('filters: model, channel, min_difference', async () => {
  assert.deepEqual(ids(await admin('/admin/reconciliation?model=kling-v2-6')), [tasks.v26pro.id, tasks.v26std.id]);
  assert.deepEqual(ids(await admin('/admin/reconciliation?model=kling-v1-6')), [tasks.v16vip.id]);
  assert.deepEqual(ids(await admin('/admin/reconciliation?model=kling-v2-5-turbo')), [], 'its task matches Kling\'s figure');
  assert.deepEqual(ids(await admin('/admin/reconciliation?channel=kling_b')), [tasks.v16vip.id]);
  assert.deepEqual(ids(await admin('/admin/reconciliation?channel=kling')), [tasks.v26pro.id, tasks.v26std.id]);
  assert.deepEqual(ids(await admin('/admin/reconciliation?channel=kling&model=kling-v1-6')), []);
  assert.deepEqual(ids(await admin('/admin/reconciliation?min_difference=50')), [tasks.v16vip.id, tasks.v26pro.id], 'a difference either way counts by its size');
  assert.deepEqual(ids(await admin('/admin/reconciliation?min_difference=100')), [tasks.v26pro.id]);
  assert.deepEqual(ids(await admin('/admin/reconciliation?min_difference=101')), []);
  assert.deepEqual(ids(await admin('/admin/reconciliation?min_difference=0')), [tasks.turbo.id, tasks.v16vip.id, tasks.v26pro.id, tasks.v26std.id], '0: every task the vendor reported on');
  assert.deepEqual(ids(await admin('/admin/reconciliation?limit=2')), [tasks.v16vip.id, tasks.v26pro.id]);
});

test('a bad min_difference is 400 invalid_request; the route needs the admin key', async () => {
  for (const bad of ['abc', '-5', '1.5', '1e3', '']) {
    const r = await admin(`/admin/reconciliation?min_difference=${encodeURIComponent(bad)}`);
    assert.equal(r.status, 400, `${bad}: ${r.text}`);
    assert.equal(r.json.error.code, 'invalid_request');
    assert.match(r.json.error.message, /`min_difference`/);
  }
  const { key } = await stack.token();
  assert.notEqual((await call(stack, key, 'GET', '/admin/reconciliation')).status, 200, 'a client token is not the admin key');
});

test('/admin/usage carries vendor_charged beside the charge for those tasks', async () => {
  const byModel = await admin('/admin/usage?group_by=model');
  assert.equal(byModel.status, 200, byModel.text);
  const row = (key: string) => byModel.json.data.find((r: { key: string }) => r.key === key);
  assert.deepEqual([row('kling-v2-6').charged, row('kling-v2-6').vendor_charged], [500, 560]);
  assert.deepEqual([row('kling-v1-6').charged, row('kling-v1-6').vendor_charged], [350, 280]);
  assert.deepEqual([row('kling-v2-5-turbo').charged, row('kling-v2-5-turbo').vendor_charged], [210, 210]);
  assert.equal(row('kling-v2-6').vendor_charged_usd, 0.56);
  assert.equal(byModel.json.total.vendor_charged, 560 + 280 + 210);
  const byChannel = await admin('/admin/usage?group_by=channel');
  const ch = (key: string) => byChannel.json.data.find((r: { key: string }) => r.key === key);
  assert.deepEqual([ch('kling').charged, ch('kling').vendor_charged], [710, 770]);
  assert.deepEqual([ch('kling_b').charged, ch('kling_b').vendor_charged], [350, 280]);
});
