// `switchyard check [--dir DIR] [--probe] [--channel ID,…]`: the config's findings (stderr), each channel's state and
// base URL (stdout), and with --probe one read-only call on every enabled channel with its real key. Exit 1 on a
// config error or a failed probe. Every printed line passes the redactor: no key, no secret, no token minted from them.
import { parseArgs } from 'node:util';
import { checkConfig, type CheckedConfig } from './config/check.js';
import { channelStatuses, type ChannelStatus } from './config/channel-status.js';
import { compileRuntime } from './config/compile.js';
import { formatDiagnostic } from './config/diagnostics.js';
import { defaultConfigDir, schemaRegistry } from './config/load-config.js';
import { probeChannel, type ProbeResult } from './probe/probe-channel.js';
import { Redactor } from './redaction/redactor.js';
import { mintedSecrets } from './transport/auth/index.js';

export async function checkCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { dir: { type: 'string' }, probe: { type: 'boolean' }, channel: { type: 'string' } } });
  const dir = values.dir ?? defaultConfigDir();
  const registry = schemaRegistry(dir);
  const result = checkConfig(dir, registry);
  for (const d of result.diagnostics) console.error(formatDiagnostic(d));
  if (!result.ok || !result.config) {
    const errors = result.diagnostics.filter((d) => d.level === 'error').length;
    console.log(`config has ${errors} error${errors === 1 ? '' : 's'}`);
    return 1;
  }
  const cfg = result.config;
  const redactor = new Redactor(mintedSecrets);
  redactor.setSecrets(cfg.resolvedChannels.flatMap((c) => [c.auth?.key, c.auth?.secret]));
  const print = (lines: string[]) => { for (const l of lines) console.log(redactor.text(l)); };
  const statuses = channelStatuses(cfg);
  print(table([['channel', 'state', 'base URL', 'why not'], ...statuses.map((s) => [s.id, s.enabled ? 'enabled' : 'disabled', s.baseUrl, s.why.join('; ')])]));
  console.log('config OK');
  if (!values.probe) return 0;
  const wanted = values.channel?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = wanted?.filter((id) => !statuses.some((s) => s.id === id)) ?? [];
  if (unknown.length) { console.error(`no channel ${unknown.join(', ')} in the config`); return 2; }
  const rows = await probeAll(cfg, registry, statuses.filter((s) => !wanted || wanted.includes(s.id)), Boolean(wanted));
  print(table([['channel', 'probe', 'call', 'result'], ...rows.map((r) => [r.channel, r.verdict, r.call, r.detail])]));
  const failed = rows.filter((r) => r.failed).length;
  const count = (v: string) => rows.filter((r) => r.verdict === v).length;
  console.log(`probe: ${count('ok')} ok, ${failed} failed, ${count('not probed')} not probed`);
  return failed ? 1 : 0;
}

interface Row { channel: string; verdict: string; call: string; detail: string; failed: boolean }

/**
 * Probes every enabled channel that has a probe, all at once (each bounded by its connect timeout and the probe's
 * own). A disabled channel is skipped, unless it was named: then not probing it is a failure.
 */
async function probeAll(cfg: CheckedConfig, registry: ReturnType<typeof schemaRegistry>, chosen: ChannelStatus[], named: boolean): Promise<Row[]> {
  const runtime = compileRuntime(cfg, registry);
  return Promise.all(chosen.map(async (s): Promise<Row> => {
    const ch = runtime.channel(s.id)!;
    if (!s.enabled) return { channel: s.id, verdict: 'not probed', call: '', detail: `disabled: ${s.why.join('; ')}`, failed: named };
    if (!ch.probe) return { channel: s.id, verdict: 'not probed', call: '', detail: 'no `probe` in its config', failed: named };
    const r: ProbeResult = await probeChannel(ch);
    return { channel: r.channel, verdict: r.verdict, call: r.call, detail: `${r.detail}, ${r.ms} ms`, failed: r.verdict !== 'ok' };
  }));
}

/** Columns padded to their widest cell; the last column is not padded. */
function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd());
}
