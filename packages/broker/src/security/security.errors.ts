import { MmmqError } from '@mmmq/core';

/** `WWW-Authenticate` challenge for a request that brought no usable token (RFC 6750). */
export const BEARER_CHALLENGE = 'Bearer realm="mmmq"';
/** `WWW-Authenticate` challenge for a request whose token the broker does not know. */
export const INVALID_TOKEN_CHALLENGE = 'Bearer realm="mmmq", error="invalid_token"';

/** No token, an unknown token, or (with no tokens configured) a client that is not on loopback; answered 401. */
export class AuthenticationRequiredError extends MmmqError {
  constructor(
    message: string,
    /** The `WWW-Authenticate` header value sent with the 401. */
    readonly challenge: string = BEARER_CHALLENGE,
  ) {
    super(message);
  }
}

/** The caller is known but may not do this: a role it lacks, a topic outside its patterns; answered 403. */
export class AccessDeniedError extends MmmqError {}

/** A browser request from an origin that is not allowed (`http.allowedOrigins`); answered 403. */
export class CrossOriginRequestError extends AccessDeniedError {}

/** The `Host` header names a host the broker does not serve (`http.allowedHosts`, DNS rebinding); answered 421. */
export class HostNotAllowedError extends MmmqError {}
