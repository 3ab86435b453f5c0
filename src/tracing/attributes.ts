// Span attributes in the OpenTelemetry semantic conventions (HTTP, GenAI) from what the gateway knows. No value
// here may carry a secret: URLs lose their query (vendors and clients put keys there), headers are never copied.
import type { Attributes } from '@opentelemetry/api';
import type { CompiledChannel } from '../config/runtime.js';

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']);
export const httpMethod = (m: string | undefined) => (m && methods.has(m) ? m : '_OTHER');

/** The path of a request target, without its query. */
export const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/**
 * `gen_ai.operation.name` from a route's operation: the convention's well-known names where one fits (chat, whatever
 * the client's dialect; embeddings), `generate_content` for the other generations (images, video, music, assets).
 */
export function genAiOperation(operation: string): string {
  if (operation === 'chat_completions') return 'chat';
  if (operation === 'embeddings') return 'embeddings';
  return 'generate_content';
}

/** The channel's vendor (its `telemetry_provider`, else the vendor file it extends) as `gen_ai.provider.name` and the older `gen_ai.system`. */
export function providerOf(channel: CompiledChannel): Attributes {
  const name = channel.provider ?? channel.id;
  return { 'gen_ai.provider.name': name, 'gen_ai.system': name };
}

/** Where an upstream call goes: host, port and the base URL without credentials or query. */
export function upstreamAttributes(channel: CompiledChannel): Attributes {
  const u = channel.baseUrl;
  return { 'server.address': u.hostname, 'server.port': Number(u.port) || (u.protocol === 'https:' ? 443 : 80) };
}

/** `url.full` of an attempt: scheme, host and path; never the query or userinfo. */
export const fullUrl = (u: URL) => `${u.protocol}//${u.host}${u.pathname}`;
