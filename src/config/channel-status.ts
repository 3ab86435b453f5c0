// What `switchyard check` says about each channel: enabled or not and why not, and where it sends (never a key).
import type { CheckedConfig } from './check.js';

export interface ChannelStatus {
  id: string;
  enabled: boolean;
  /** Why a disabled channel is disabled (every reason that applies). */
  why: string[];
  /** The base URL with no credentials or query values in it. */
  baseUrl: string;
}

export function channelStatuses(cfg: CheckedConfig): ChannelStatus[] {
  return cfg.resolvedChannels.map((c, i) => {
    const why: string[] = [];
    if (cfg.channels.channels[i]?.enabled === false) why.push('`enabled: false` in channels.yaml');
    const unset = cfg.unsetEnv[c.id] ?? [];
    if (unset.length) why.push(`${unset.join(', ')} ${unset.length === 1 ? 'is' : 'are'} not set`);
    const urlUnset = unset.length > 0 && !URL.canParse(c.base_url);
    return { id: c.id, enabled: c.enabled !== false, why, baseUrl: urlUnset ? '(unset)' : displayUrl(c.base_url) };
  });
}

/**
 * A URL as an operator may see it printed: user and password replaced, query values hidden (a key is sometimes
 * put there). The caller still passes the line through the redactor for a key written into the path.
 */
export function displayUrl(raw: string): string {
  let url: URL;
  try { url = new URL(raw); } catch { return '(not a URL)'; }
  if (url.username || url.password) { url.username = '***'; url.password = ''; }
  for (const k of [...url.searchParams.keys()]) url.searchParams.set(k, '***');
  return url.href.replace(/\/$/, '');
}
