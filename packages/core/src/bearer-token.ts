/**
 * Tokens a broker accepts (`auth.tokens`), producers and consumers send. On HTTP a token travels as
 * `Authorization: Bearer <token>`; on the publish stream as the body of an AUTH request.
 */

/** Printable ASCII without spaces: what an `Authorization` header carries unchanged. */
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

/** Whether `value` can be sent as a bearer token; says nothing of whether a broker knows it. */
export function isBearerTokenText(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_CHARACTERS.test(value);
}

/** The `Authorization` header value that presents `token`. */
export function bearerAuthorization(token: string): string {
  return `Bearer ${token}`;
}
