// A channel's or template's `probe`: its JSONata parses, and a body goes only with POST (a GET with a body is
// dropped or refused by many servers, and the probe would then say something about the wrong request).
import type { ChannelsFile, Probe } from '../types/generated/channels.js';
import { compileTransform, TransformError } from '../transform/compile-transform.js';

export function probeRules(channels: ChannelsFile, at: (pointer: string, message: string) => void): void {
  channels.channels.forEach((c, i) => { if (c.probe) one(c.probe, `/channels/${i}/probe`, at); });
  for (const [name, t] of Object.entries(channels.templates ?? {})) if (t.probe) one(t.probe, `/templates/${name}/probe`, at);
}

function one(p: Probe, base: string, at: (pointer: string, message: string) => void): void {
  if (p.body !== undefined && p.method !== 'POST') at(`${base}/body`, 'a probe body is sent only with `method: POST`');
  if (p.auth_failed_when === undefined) return;
  try { compileTransform(p.auth_failed_when, 50); } catch (e) {
    if (!(e instanceof TransformError)) throw e;
    at(`${base}/auth_failed_when`, e.message);
  }
}
