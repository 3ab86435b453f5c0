// The gateway's public origin as the client reached it, for links in answers (behind a proxy: X-Forwarded-*).
import type { IncomingMessage } from 'node:http';

export function baseUrlOf(req: IncomingMessage): string {
  const proto = String(req.headers['x-forwarded-proto'] ?? '').split(',')[0].trim() || 'http';
  const host = String(req.headers['x-forwarded-host'] ?? req.headers.host ?? 'localhost').split(',')[0].trim();
  return `${proto === 'https' ? 'https' : 'http'}://${host.replace(/[^A-Za-z0-9.:[\]-]/g, '')}`;
}
