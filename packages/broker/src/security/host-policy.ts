import { isIPv4, isIPv6 } from 'node:net';
import { InvalidBrokerOptionsError } from '../config/invalid-broker-options.error';
import { HostNotAllowedError } from './security.errors';

/** In `http.allowedHosts`: every host name is served (turns the DNS-rebinding protection off). */
export const ANY_HOST = '*';

const LOCALHOST = 'localhost';
const HOST_NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;
const PORT = /^\d{1,5}$/;
/** How much of a refused header an error quotes. */
const QUOTED_MAX_LENGTH = 100;

/**
 * Refuses requests whose `Host` header names a host the broker does not serve. A web page can make a browser
 * send requests to a loopback broker by pointing its own domain at 127.0.0.1 (DNS rebinding); the browser then
 * sends that domain as `Host`, which no legitimate client of this broker uses. IP literals (v4, and v6 in
 * brackets), `localhost` and `*.localhost` are always served, on any port; other names only when listed.
 */
export class HostPolicy {
  private readonly allowed: ReadonlySet<string>;

  /** @param allowedHosts normalised by {@link normaliseAllowedHost} */
  constructor(allowedHosts: readonly string[]) {
    this.allowed = new Set(allowedHosts);
  }

  /** @throws HostNotAllowedError naming the host and `http.allowedHosts` */
  check(host: string | undefined): void {
    // HTTP/1.0 clients may omit it; no browser does, so there is nothing to rebind.
    if (host === undefined || this.allowed.has(ANY_HOST)) return;
    const name = hostName(host);
    if (name !== undefined && (isAlwaysServed(name) || this.allowed.has(name))) return;
    throw new HostNotAllowedError(
      `Host ${quote(host)} is not served by this broker (DNS rebinding protection): IP addresses and localhost are; ` +
        `add ${name === undefined ? 'the name' : quote(name)} to http.allowedHosts if clients reach the broker by it`,
    );
  }
}

/**
 * Whether `host` is served by name: an IP literal, `localhost`, or listed in `http.allowedHosts` — not merely
 * accepted by `*`. Only such a host can be trusted as the origin of a page the broker served itself.
 */
export function servesByName(allowedHosts: readonly string[], host: string | undefined): boolean {
  const name = host === undefined ? undefined : hostName(host);
  return name !== undefined && (isAlwaysServed(name) || (name !== ANY_HOST && allowedHosts.includes(name)));
}

/**
 * Checks an entry of `http.allowedHosts`: a host name (no port, no scheme) or `*`.
 * @throws InvalidBrokerOptionsError
 */
export function normaliseAllowedHost(value: unknown, where: string): string {
  const name = typeof value === 'string' ? value.trim().toLowerCase().replace(/\.$/, '') : undefined;
  if (name === undefined || (name !== ANY_HOST && !HOST_NAME.test(name))) {
    throw new InvalidBrokerOptionsError(
      `${where} must be a host name without scheme or port (like broker.internal), or ${ANY_HOST}; got ${JSON.stringify(value)}`,
    );
  }
  return name;
}

/** The lower-case host name of a `Host` header without its port; IPv6 literals keep their brackets. */
function hostName(host: string): string | undefined {
  const value = host.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    const port = value.slice(end + 1);
    if (end === -1 || (port !== '' && !(port.startsWith(':') && PORT.test(port.slice(1))))) return undefined;
    return isIPv6(value.slice(1, end)) ? value.slice(0, end + 1) : undefined;
  }
  const colon = value.lastIndexOf(':');
  const name = colon === -1 ? value : value.slice(0, colon);
  if (colon !== -1 && !PORT.test(value.slice(colon + 1))) return undefined;
  return name.replace(/\.$/, '');
}

function isAlwaysServed(name: string): boolean {
  return name.startsWith('[') || isIPv4(name) || name === LOCALHOST || name.endsWith(`.${LOCALHOST}`);
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTED_MAX_LENGTH ? `${text.slice(0, QUOTED_MAX_LENGTH)}…` : text);
}
