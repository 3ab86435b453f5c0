// Who may call a route, as OpenAPI security: a client token as a Bearer key (or in the route dialect's key header),
// the operator's key on the admin API, a console user's session cookie on theirs, nothing on `auth: false` routes
// (src/pipeline/authenticate.ts, authenticate-session.ts).
import type { CompiledRoute } from '../config/runtime.js';

export const clientToken = 'clientToken';
export const adminKey = 'adminKey';
export const consoleSession = 'consoleSession';
/** The scheme of a dialect's key header, e.g. `keyHeader.x-api-key`. */
export const keyHeaderScheme = (header: string) => `keyHeader.${header.replace(/[^A-Za-z0-9._-]/g, '_')}`;
/** The scheme of a dialect's key query parameter, e.g. `keyQuery.key`. */
export const keyQueryScheme = (name: string) => `keyQuery.${name.replace(/[^A-Za-z0-9._-]/g, '_')}`;

export type Requirement = Record<string, string[]>;

/** Alternatives: any one of them lets the request in; none for open routes. */
export function securityOf(route: CompiledRoute): Requirement[] {
  if (route.auth === false) return [];
  if (route.auth === 'admin') return [{ [adminKey]: [] }];
  if (route.auth === 'session') return [{ [consoleSession]: [] }];
  return [{ [clientToken]: [] }, ...(route.keyHeader ? [{ [keyHeaderScheme(route.keyHeader)]: [] }] : []),
    ...(route.keyQuery ? [{ [keyQueryScheme(route.keyQuery)]: [] }] : [])];
}

/** The schemes the routes use. */
export function securitySchemes(routes: CompiledRoute[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (routes.some((r) => r.auth === true)) {
    out[clientToken] = {
      type: 'http', scheme: 'bearer',
      description: 'A client token (`Authorization: Bearer <key>`), made with `switchyard token create` or `POST /admin/tokens`. Its group decides which models it reaches; its quota pays for requests.',
    };
  }
  for (const header of new Set(routes.filter((r) => r.auth === true && r.keyHeader).map((r) => r.keyHeader!))) {
    out[keyHeaderScheme(header)] = {
      type: 'apiKey', in: 'header', name: header,
      description: `The same client token in the \`${header}\` header, as this dialect's clients send it (Authorization: Bearer is read first).`,
    };
  }
  for (const name of new Set(routes.filter((r) => r.auth === true && r.keyQuery).map((r) => r.keyQuery!))) {
    out[keyQueryScheme(name)] = {
      type: 'apiKey', in: 'query', name,
      description: `The same client token in the \`${name}\` query parameter, as this dialect's clients may send it (read last; never logged).`,
    };
  }
  if (routes.some((r) => r.auth === 'admin')) {
    out[adminKey] = {
      type: 'http', scheme: 'bearer',
      description: 'The operator\'s key, SWITCHYARD_ADMIN_KEY (`Authorization: Bearer <key>`). A client token gets 403 admin_key_required.',
    };
  }
  if (routes.some((r) => r.auth === 'session')) {
    out[consoleSession] = {
      type: 'apiKey', in: 'cookie', name: 'sy_session',
      description: 'A console user\'s session (`POST /console/api/sign-in`): an HttpOnly, SameSite=Strict cookie, named `__Host-sy_session` and Secure over TLS. Every method but GET also sends the session\'s `X-CSRF-Token` (GET /console/api/me `csrf_token`).',
    };
  }
  return out;
}
