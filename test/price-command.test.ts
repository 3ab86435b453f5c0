// `switchyard price`: what a usage costs under the shipped prices, line by line, read from the gateway's own usage
// record or from a vendor's usage object by the paths billing reads; the request fields choose the price.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../src/config/load-config.js';

const price = (...args: string[]) => spawnSync(process.execPath, [join(projectRoot, 'dist', 'src', 'cli.js'), 'price', ...args], { encoding: 'utf8' });
const json = (...args: string[]) => {
  const r = price(...args, '--json');
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test('a Messages usage with cache reads and writes, read by the dialect\'s paths: each class at its rate', () => {
  const usage = '{"input_tokens":1000,"cache_creation_input_tokens":10000,"cache_read_input_tokens":90000,"output_tokens":500}';
  const out = json('claude-sonnet-4-5', '--from', 'anthropic_messages', '--usage', usage);
  assert.equal(out.total, 75);
  assert.deepEqual(out.lines.map((l: { item: string; quantity: number }) => [l.item, l.quantity]), [['cached_input', 90000], ['cache_write', 10000], ['input', 1000], ['output', 500]]);
  const text = price('claude-sonnet-4-5', '--from', 'anthropic_messages', '--usage', usage);
  assert.match(text.stdout, /cache_write +10000 × +3750 per million tokens = 37\.5/);
  assert.match(text.stdout, /charge: 75 units \(\$0\.075\)/);
});

test('the body chooses the price: a service tier, a mode; a tier by prompt size shows', () => {
  const usage = '{"prompt_tokens":100000,"completion_tokens":500,"details":{"cached":90000}}';
  assert.equal(json('gpt-4o-mini', '--usage', usage).total, 9);
  const priority = json('gpt-4o-mini', '--usage', usage, '--body', '{"service_tier":"priority"}');
  assert.deepEqual([priority.total, priority.chose], [15, { service_tier: 'priority' }]);
  assert.equal(json('kling-v2-6', '--body', '{"metadata":{"mode":"pro"}}', '--seconds', '10').total, 700);
  const long = json('gpt-6-luna', '--usage', '{"prompt_tokens":300000,"completion_tokens":1000}');
  assert.deepEqual([long.tier, long.total], [272000, Math.ceil((300000 * 200 + 1000 * 750) / 1e6)]);
});

test('mistakes are named: an unpriced option, no such model, a usage without counts', () => {
  const bad = price('kling-v2-6', '--body', '{"metadata":{"mode":"master"}}');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /`metadata\.mode` "master" is not offered for model kling-v2-6/);
  assert.equal(price('no-such-model').status, 1);
  const noCounts = price('gpt-4o', '--usage', '{"tokens":5}');
  assert.equal(noCounts.status, 2);
  assert.match(noCounts.stderr, /prompt_tokens and completion_tokens/);
  assert.match(price('gpt-4o', '--usage', '{', '--json').stderr, /--usage is not JSON/);
});
