import { isIPv4, isIPv6 } from 'node:net';
import { describeValue } from './errors/describe-value';
import { InvalidHostError } from './errors/invalid-host-error';

export const HostProtocol = { HTTP: 'HTTP', HTTPS: 'HTTPS' } as const;
export type HostProtocol = (typeof HostProtocol)[keyof typeof HostProtocol];

export const HOST_PORT_MIN = 1;
export const HOST_PORT_MAX = 65_535;
/** DNS limits (RFC 1035) for the textual form of a host name and each of its labels. */
export const HOST_ADDRESS_MAX_LENGTH = 253;
export const HOST_LABEL_MAX_LENGTH = 63;

/** The JSON shape of a host, as written in `dispatchers.json`. */
export interface HostDefinition {
  protocol: HostProtocol;
  address: string;
  port: number;
}

const PROTOCOL = /^https?$/i; // no `u` flag: with it, `/s/i` would also accept U+017F (ſ)
const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s;
const URL_EXAMPLE = '"http://consumer-host:8080"';
const PATH_QUERY_OR_FRAGMENT = /[/?#]/;
const PORT_DIGITS = /^\d{1,5}$/;
const HOSTNAME_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
/**
 * A label resolvers read as a number: decimal, or `0x` hex. `getaddrinfo` hands a name ending in one to
 * `inet_aton`, which turns `0xa9fea9fe` or `169.254.43518` into 169.254.169.254.
 */
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/i;

/**
 * Where a consumer listens: protocol, address and port, and nothing else. The broker appends its own
 * path when delivering, so a URL with a path, query, fragment or user info is rejected rather than
 * half-honoured. Addresses are lower-cased (DNS names are case-insensitive) and IPv6 addresses are
 * kept without brackets, the form socket APIs expect.
 */
export class Host implements HostDefinition {
  private constructor(
    readonly protocol: HostProtocol,
    readonly address: string,
    readonly port: number,
  ) {}

  /**
   * Accepts a `{protocol, address, port}` object (protocol case-insensitive) or an
   * `http(s)://address:port` URL string.
   * @throws InvalidHostError
   */
  static parse(input: unknown): Host {
    const { protocol, address, port } = typeof input === 'string' ? readUrl(input) : readDefinition(input);
    return new Host(protocol, address, port);
  }

  toUrl(): string {
    // Only IPv6 addresses contain ':'; a URL needs them bracketed to tell them from the port.
    const address = this.address.includes(':') ? `[${this.address}]` : this.address;
    return `${this.protocol.toLowerCase()}://${address}:${this.port}`;
  }

  equals(other: Host): boolean {
    return this.protocol === other.protocol && this.address === other.address && this.port === other.port;
  }

  toString(): string {
    return this.toUrl();
  }

  toJSON(): HostDefinition {
    return { protocol: this.protocol, address: this.address, port: this.port };
  }
}

function readUrl(url: string): HostDefinition {
  const match = URL_SHAPE.exec(url);
  if (match === null) {
    throw new InvalidHostError(`Host URL ${describeValue(url)} must look like ${URL_EXAMPLE}`);
  }
  const [, scheme, authority] = match;
  if (!PROTOCOL.test(scheme)) {
    throw new InvalidHostError(`Host URL ${describeValue(url)} has the unsupported scheme ${describeValue(scheme)}; use http or https`);
  }
  if (PATH_QUERY_OR_FRAGMENT.test(authority)) {
    throw new InvalidHostError(
      `Host URL ${describeValue(url)} must not have a path, query or fragment (not even a trailing '/'); ` +
        `the broker appends its own path`,
    );
  }
  if (authority.includes('@')) {
    throw new InvalidHostError(`Host URL ${describeValue(url)} must not contain user info`);
  }
  const portSeparator = authority.lastIndexOf(':');
  // A ':' inside brackets belongs to an IPv6 address, not to the port.
  if (portSeparator < 0 || portSeparator < authority.lastIndexOf(']')) {
    throw new InvalidHostError(`Host URL ${describeValue(url)} must give an explicit port, like ${URL_EXAMPLE}`);
  }
  const portText = authority.slice(portSeparator + 1);
  if (!PORT_DIGITS.test(portText)) {
    throw new InvalidHostError(`Host URL ${describeValue(url)} has the invalid port ${describeValue(portText)}`);
  }
  const address = authority.slice(0, portSeparator);
  return {
    protocol: normaliseProtocol(scheme),
    address: normaliseAddress(address, { bareIPv6: false }),
    port: checkPort(Number(portText)),
  };
}

function readDefinition(input: unknown): HostDefinition {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidHostError(`Host must be a {protocol, address, port} object or a URL like ${URL_EXAMPLE}, got ${describeValue(input)}`);
  }
  const { protocol, address, port } = input as Record<string, unknown>;
  if (typeof protocol !== 'string' || !PROTOCOL.test(protocol)) {
    throw new InvalidHostError(`Host protocol must be "HTTP" or "HTTPS", got ${describeValue(protocol)}`);
  }
  if (typeof address !== 'string') {
    throw new InvalidHostError(`Host address must be a string, got ${describeValue(address)}`);
  }
  if (typeof port !== 'number') {
    throw new InvalidHostError(`Host port must be a number, got ${describeValue(port)}`);
  }
  return {
    protocol: normaliseProtocol(protocol),
    address: normaliseAddress(address, { bareIPv6: true }),
    port: checkPort(port),
  };
}

function normaliseProtocol(protocol: string): HostProtocol {
  return protocol.toUpperCase() === HostProtocol.HTTPS ? HostProtocol.HTTPS : HostProtocol.HTTP;
}

/** In a URL an IPv6 address must be bracketed; in a definition object the bare form is unambiguous too. */
function normaliseAddress(address: string, accept: { bareIPv6: boolean }): string {
  if (address.startsWith('[') && address.endsWith(']')) {
    const ip = address.slice(1, -1);
    if (isIPv6WithoutZone(ip)) {
      return ip.toLowerCase();
    }
    throw new InvalidHostError(`Host address ${describeValue(address)} is not a valid bracketed IPv6 address`);
  }
  if ((accept.bareIPv6 && isIPv6WithoutZone(address)) || isHostnameOrIPv4(address)) {
    return address.toLowerCase();
  }
  throw new InvalidHostError(
    `Host address ${describeValue(address)} is not a host name (letters, digits, '-' and '.'), ` +
      `an IPv4 address or a bracketed IPv6 address`,
  );
}

// Zone ids (`fe80::1%eth0`) only mean something on the broker's own machine and need `%25` escaping
// inside a URL, so they are refused rather than carried around.
function isIPv6WithoutZone(address: string): boolean {
  return !address.includes('%') && isIPv6(address);
}

function isHostnameOrIPv4(address: string): boolean {
  if (address.length === 0 || address.length > HOST_ADDRESS_MAX_LENGTH) {
    return false;
  }
  const labels = address.split('.');
  if (!labels.every((label) => label.length <= HOST_LABEL_MAX_LENGTH && HOSTNAME_LABEL.test(label))) {
    return false;
  }
  // Resolvers read a name whose last label is numeric as an IPv4 address, so it has to be a valid one, in the
  // one dotted-decimal spelling (no octal, hex or fewer parts) that every check downstream understands.
  return !NUMERIC_LABEL.test(labels[labels.length - 1]) || isIPv4(address);
}

function checkPort(port: number): number {
  if (!Number.isInteger(port) || port < HOST_PORT_MIN || port > HOST_PORT_MAX) {
    throw new InvalidHostError(`Host port must be an integer from ${HOST_PORT_MIN} to ${HOST_PORT_MAX}, got ${describeValue(port)}`);
  }
  return port;
}
