// Console users over HTTP for the tests: a user made through UserAdmin, an invite minted through the admin API, and
// a signed-in session that keeps its cookie and CSRF token (a cookie jar of one).
import assert from 'node:assert/strict';
import { UserAdmin } from '../../src/admin/user-admin.js';
import type { Stack } from './stack.js';
import type { RawReply } from './api.js';

export async function call(stack: Stack, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawReply> {
  const res = await fetch(`${stack.url}${path}`, {
    method, headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

export const newUser = (stack: Stack, name: string, quota = 1_000_000) => {
  const g = stack.gw.gateway;
  return new UserAdmin(g.store, g.accounts, () => g.runtime).create({ name, quota });
};

/** POST /admin/users/{id}/invite: the code of the link it answers. */
export async function inviteCode(stack: Stack, adminKey: string, user: string): Promise<string> {
  const r = await call(stack, 'POST', `/admin/users/${user}/invite`, undefined, { authorization: `Bearer ${adminKey}` });
  assert.equal(r.status, 201, r.text);
  return new URL(r.json.url).hash.replace('#invite=', '');
}

export interface Session { cookie: string; csrf: string; user: string; call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RawReply> }

export async function signIn(stack: Stack, name: string, password: string, headers: Record<string, string> = {}): Promise<Session> {
  const r = await call(stack, 'POST', '/console/api/sign-in', { name, password }, headers);
  assert.equal(r.status, 200, r.text);
  const cookie = r.headers.get('set-cookie')!.split(';')[0];
  const csrf = r.json.csrf_token as string;
  return {
    cookie, csrf, user: r.json.user.id,
    call: (method, path, body, more = {}) => call(stack, method, path, body, { cookie, ...(method !== 'GET' && { 'x-csrf-token': csrf }), ...more }),
  };
}

/** A user with a console password: made, invited, the invite taken. */
export async function memberOf(stack: Stack, adminKey: string, name: string, password = 'correct horse battery staple'): Promise<{ id: string; name: string; password: string }> {
  const u = await newUser(stack, name);
  const r = await call(stack, 'POST', '/console/api/invite', { code: await inviteCode(stack, adminKey, u.id), password });
  assert.equal(r.status, 200, r.text);
  return { id: u.id, name, password };
}
