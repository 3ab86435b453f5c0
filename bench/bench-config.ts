// Writes the config the bench runs with: the repository's own routes and channels, with group rate limits lifted.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument, type Document } from 'yaml';

/** Far above anything one token can send here, yet a real limit, so the limiter's cost stays in the measurement. */
export const benchRateLimit = { requests: 1_000_000_000, window_s: 60 };
export const benchMaxInflightTasks = 1_000_000;

/**
 * The shipped groups allow 600-3000 requests a minute per token, which a load test passes in well under a second.
 * Everything else (channels, templates, prices, routes) is the repository's, so the request path is the real one.
 */
export function writeBenchConfig(projectRoot: string, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'routes.yaml'), readFileSync(join(projectRoot, 'routes.yaml')));
  const doc = parseDocument(readFileSync(join(projectRoot, 'channels.yaml'), 'utf8'));
  const groups = doc.get('groups') as { items?: { key: unknown }[] } | undefined;
  const names = (groups?.items ?? []).map((p) => String((p.key as { value?: unknown })?.value ?? p.key));
  for (const name of names) {
    doc.setIn(['groups', name, 'rate_limit'], doc.createNode(benchRateLimit));
    doc.setIn(['groups', name, 'max_inflight_tasks'], benchMaxInflightTasks); // the task scenario keeps thousands open
  }
  disableRemoteChannels(doc);
  writeFileSync(join(dir, 'channels.yaml'), doc.toString({ lineWidth: 0 })); // no re-wrapping: a --keep-tmp diff shows only the edits
  return names;
}

const loopback = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/;

/** Load tests reach loopback only: a channel whose base URL is neither the simulator nor loopback is switched off. */
function disableRemoteChannels(doc: Document): void {
  const channels = doc.get('channels') as { items?: unknown[] } | undefined;
  for (let i = 0; i < (channels?.items?.length ?? 0); i++) {
    const ext = doc.getIn(['channels', i, 'extends']);
    const base = String(doc.getIn(['channels', i, 'base_url']) ?? (ext ? doc.getIn(['templates', String(ext), 'base_url']) ?? '' : ''));
    if (!base.includes('${env:SWITCHYARD_SIM_URL') && !loopback.test(base)) doc.setIn(['channels', i, 'enabled'], false);
  }
}
