// Sends a channel's probe through the engine's one transport: the channel's target (base URL, headers, auth scheme),
// its pool and connect timeout; the probe's own time limit for the answer.
import type { CompiledChannel } from '../config/runtime.js';
import { channelTarget } from '../transport/channel-target.js';
import { send } from '../transport/http-client.js';
import { readLimited } from '../transport/read-limited.js';
import { judgeAnswer, judgeFailure, type Judged } from './judge.js';

export interface ProbeResult extends Judged {
  channel: string;
  /** Method and path, e.g. `GET /v1/models`. */
  call: string;
  ms: number;
}

/** Enough for a model list; a longer answer is judged by its status alone. */
const maxBodyBytes = 1 << 20;

export async function probeChannel(channel: CompiledChannel): Promise<ProbeResult> {
  const probe = channel.probe!;
  const call = `${probe.method} ${probe.path}`;
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  let judged: Judged;
  try {
    const target = channelTarget(channel, { method: probe.method, path: probe.path, body: probe.body, contentType: 'application/json' });
    const res = await send({ ...target, firstByteMs: probe.timeoutMs });
    const body = await readLimited(res, maxBodyBytes, probe.timeoutMs).catch(() => undefined);
    judged = await judgeAnswer(probe, res.statusCode ?? 0, body);
  } catch (err) {
    judged = judgeFailure(err);
  }
  return { channel: channel.id, call, ms: ms(), ...judged };
}
