// Upstream auth schemes: how a channel's secret is attached to an outgoing request.
import type { Auth } from '../types/generated/channels.js';

/** Adds the channel's credentials to headers or path; returns the (possibly extended) path. */
export function applyAuth(auth: Auth, headers: Record<string, string>, path: string): string {
  const key = auth.key ?? '';
  switch (auth.scheme) {
    case 'bearer':
      headers.authorization = `Bearer ${key}`;
      return path;
    case 'header':
      headers[auth.header!.toLowerCase()] = `${auth.prefix ?? ''}${key}`;
      return path;
    case 'query':
      return `${path}${path.includes('?') ? '&' : '?'}${encodeURIComponent(auth.param!)}=${encodeURIComponent(key)}`;
    case 'none':
      return path;
  }
}
