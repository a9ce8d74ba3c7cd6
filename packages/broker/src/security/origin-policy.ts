import type { IncomingHttpHeaders } from 'node:http';
import { InvalidBrokerOptionsError } from '../config/invalid-broker-options.error';
import { CrossOriginRequestError } from './security.errors';

/** Methods that change something; browsers send `Origin` with every one of them. */
const STATE_CHANGING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** `Sec-Fetch-Site` values of a request a page of another origin made (`same-site` includes other ports). */
const FOREIGN_FETCH_SITES: ReadonlySet<string> = new Set(['cross-site', 'same-site']);
const QUOTED_MAX_LENGTH = 100;

/**
 * Refuses state-changing requests that a web page of another origin made a browser send: a page can POST to a
 * loopback broker (a "simple" request needs no CORS preflight) even though it cannot read the answer. Browsers
 * mark such requests with `Origin` (and `Sec-Fetch-Site`); other clients send neither. Origins listed in
 * `http.allowedOrigins` (say, an admin console on its own domain) are let through.
 */
export class OriginPolicy {
  private readonly allowed: ReadonlySet<string>;

  /** @param allowedOrigins normalised by {@link normaliseAllowedOrigin} */
  constructor(allowedOrigins: readonly string[]) {
    this.allowed = new Set(allowedOrigins);
  }

  /**
   * @param ownOrigin the origin the request was sent to (`scheme://Host`), when its `Host` is one the broker serves by
   *   name (not merely by `*`, where a rebound domain would be its own origin); its pages may change the broker
   * @throws CrossOriginRequestError naming the origin and `http.allowedOrigins`
   */
  check(method: string | undefined, headers: IncomingHttpHeaders, ownOrigin?: string): void {
    if (method === undefined || !STATE_CHANGING_METHODS.has(method.toUpperCase())) return;
    const origin = headers.origin;
    if (origin !== undefined) {
      const normalised = normaliseOrigin(origin);
      if (normalised !== undefined && (this.allowed.has(normalised) || normalised === ownOrigin)) return;
      throw new CrossOriginRequestError(
        `Cross-origin request from ${quote(origin)} refused: a web page may not change this broker; ` +
          'add the origin to http.allowedOrigins to allow it',
      );
    }
    const site = headers['sec-fetch-site'];
    if (typeof site === 'string' && FOREIGN_FETCH_SITES.has(site.toLowerCase())) {
      throw new CrossOriginRequestError(
        `Cross-site request refused (Sec-Fetch-Site: ${quote(site)}): a web page may not change this broker`,
      );
    }
  }
}

/**
 * Checks an entry of `http.allowedOrigins`: an origin like `https://console.example.com:8443` (scheme, host,
 * optional port; no path).
 * @throws InvalidBrokerOptionsError
 */
export function normaliseAllowedOrigin(value: unknown, where: string): string {
  const url = typeof value === 'string' ? parseUrl(value) : undefined;
  const bare = url !== undefined && url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '';
  const origin = bare && typeof value === 'string' ? normaliseOrigin(value) : undefined;
  if (origin === undefined) {
    throw new InvalidBrokerOptionsError(
      `${where} must be an origin like https://console.example.com (scheme, host, optional port, no path); got ${JSON.stringify(value)}`,
    );
  }
  return origin;
}

/** `scheme://host[:port]` in lower case without a default port; undefined for `null` and anything not http(s). */
export function normaliseOrigin(origin: string): string | undefined {
  const url = parseUrl(origin);
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : undefined;
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text.trim());
  } catch {
    return undefined;
  }
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTED_MAX_LENGTH ? `${text.slice(0, QUOTED_MAX_LENGTH)}…` : text);
}
