// A bounded request/response call to a channel, for work that must read the whole answer (task submit and poll).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { CompiledChannel } from '../config/runtime.js';
import { applyAuth } from './auth/index.js';
import { UpstreamFailure } from './send-upstream.js';
import { readLimited } from './read-limited.js';

export interface FetchResult { status: number; headers: IncomingHttpHeaders; body: Buffer }
export interface FetchSpec { method: string; path: string; body?: Buffer; contentType?: string; maxBytes?: number; signal?: AbortSignal }

export function fetchUpstream(channel: CompiledChannel, spec: FetchSpec): Promise<FetchResult> {
  const headers: Record<string, string> = { ...channel.headers, accept: 'application/json' };
  if (spec.body) {
    headers['content-type'] = spec.contentType ?? 'application/json';
    headers['content-length'] = String(spec.body.length);
  }
  const prefix = channel.baseUrl.pathname.replace(/\/$/, '');
  const url = new URL(applyAuth(channel.auth, { method: spec.method, host: channel.baseUrl.host, path: `${prefix}${spec.path}`, headers, body: spec.body }), channel.baseUrl);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const { connect_ms, first_byte_ms, idle_ms } = channel.timeouts;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: spec.method, headers, agent: channel.agent, signal: spec.signal });
    let timer = setTimeout(() => req.destroy(new UpstreamFailure('connect', `connect timed out after ${connect_ms} ms`)), connect_ms);
    req.once('socket', (s) => {
      const firstByte = () => { clearTimeout(timer); timer = setTimeout(() => req.destroy(new UpstreamFailure('timeout', `no response within ${first_byte_ms} ms`)), first_byte_ms); };
      if (s.connecting) s.once('connect', firstByte); else firstByte();
    });
    req.once('response', (res) => {
      clearTimeout(timer);
      readLimited(res, spec.maxBytes ?? 16 << 20, idle_ms).then(
        (body) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body }),
        (err) => reject(new UpstreamFailure('network', (err as Error).message)),
      );
    });
    req.once('error', (err: Error & { code?: string }) => {
      clearTimeout(timer);
      reject(err instanceof UpstreamFailure ? err : new UpstreamFailure(err.code === 'ECONNREFUSED' ? 'connect' : 'network', err.code ?? err.message));
    });
    req.end(spec.body);
  });
}
