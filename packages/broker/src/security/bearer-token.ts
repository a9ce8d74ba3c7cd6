import { AuthenticationRequiredError } from './security.errors';

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The token of an `Authorization: Bearer <token>` header; undefined without the header.
 * @throws AuthenticationRequiredError for any other kind of `Authorization`
 */
export function bearerToken(authorization: string | string[] | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = typeof authorization === 'string' ? BEARER.exec(authorization) : null;
  if (match === null) throw new AuthenticationRequiredError('Authorization must be "Bearer <token>"');
  return match[1];
}
