import { BlockList, isIP } from 'node:net';
import { Host, MmmqValidationError } from '@mmmq/core';
import { ADDRESS_CLASS_DESCRIPTIONS, ALWAYS_REFUSED_CLASSES, classifyAddress, legacyIPv4 } from './address-class';

/** Allow-list keyword: 127.0.0.0/8 and ::1. */
export const LOOPBACK_NETWORKS = 'loopback';
/** Allow-list keyword: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7 and fec0::/10. */
export const PRIVATE_NETWORKS = 'private';

/**
 * Private and loopback addresses pushes may go to unless configured otherwise: loopback only, so a broker and
 * its consumers on one machine (every development setup) work, and nothing inside the network is reachable.
 */
export const DEFAULT_PUSH_ALLOWED_NETWORKS: readonly string[] = [LOOPBACK_NETWORKS];

/**
 * Names of cloud metadata services (and their subdomains), refused whatever they resolve to, even when they do
 * not resolve where the dispatcher is registered: GCP (`metadata.google.internal`, `metadata.goog`, and the
 * short `metadata` its resolvers complete) and AWS (`instance-data`, `instance-data.ec2.internal`).
 */
export const METADATA_HOST_NAMES: readonly string[] = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
];

/** A push target is not allowed; a 400 at registration, a failed push at push time. */
export class PushTargetRefusedError extends MmmqValidationError {}

/** One entry of the allow-list, as configured. */
type AllowedNetwork = typeof LOOPBACK_NETWORKS | typeof PRIVATE_NETWORKS | { network: string; prefix: number };

/**
 * Where pushes may go (SSRF protection): public addresses always; private and loopback addresses only when the
 * allow-list (`delivery.allowedNetworks`) covers them; link-local, metadata, unspecified, multicast and broadcast
 * addresses never. A pure decision about one address or host; resolving names is the caller's.
 */
export class PushTargetPolicy {
  private readonly keywords = new Set<string>();
  private readonly networks = new BlockList();

  /** @throws MmmqValidationError for an entry that is neither a keyword nor a CIDR (see {@link parseAllowedNetwork}) */
  constructor(readonly allowedNetworks: readonly string[] = DEFAULT_PUSH_ALLOWED_NETWORKS) {
    for (const entry of allowedNetworks) {
      const allowed = parseAllowedNetwork(entry);
      if (typeof allowed === 'string') this.keywords.add(allowed);
      else this.networks.addSubnet(allowed.network, allowed.prefix, allowed.network.includes(':') ? 'ipv6' : 'ipv4');
    }
  }

  /**
   * Why pushing to the IP address `address` is refused, or undefined if it is allowed. `spelledAs` is how the
   * host was written, when that differs (`0xa9fea9fe` for 169.254.169.254), so the reason names both.
   */
  refusalOfAddress(address: string, spelledAs = address): string | undefined {
    const { kind, ipv4 } = classifyAddress(address);
    if (kind === 'public') return undefined;
    const reached = ipv4 ?? address;
    const what = `${spelledAs}${reached !== spelledAs ? ` (${reached})` : ''} is ${ADDRESS_CLASS_DESCRIPTIONS[kind]}`;
    if (ALWAYS_REFUSED_CLASSES.has(kind)) return `${what}; pushes there are always refused`;
    if (this.keywords.has(kind) || this.covers(address) || (ipv4 !== undefined && this.covers(ipv4))) return undefined;
    return `${what}; allow it with delivery.allowedNetworks (MMMQ_PUSH_ALLOWED_NETWORKS), e.g. "${kind === 'loopback' ? LOOPBACK_NETWORKS : PRIVATE_NETWORKS}" or a CIDR`;
  }

  /**
   * Why pushing to `host` is refused, judging by its address alone: an IP address in any spelling resolvers
   * accept, or a metadata name. Undefined for other names: what they resolve to is checked separately.
   */
  refusalOfHost(host: Host): string | undefined {
    const { address } = host;
    if (isIP(address)) return this.refusalOfAddress(address);
    const ipv4 = legacyIPv4(address);
    if (ipv4 !== undefined) return this.refusalOfAddress(ipv4, address);
    if (METADATA_HOST_NAMES.some((name) => address === name || address.endsWith(`.${name}`))) {
      return `${address} names a cloud metadata service; pushes there are always refused`;
    }
    return undefined;
  }

  /** @throws PushTargetRefusedError naming the host and why, unless {@link refusalOfHost} allows it */
  assertHostAllowed(host: Host, where = 'host'): void {
    const refusal = this.refusalOfHost(host);
    if (refusal !== undefined) throw new PushTargetRefusedError(`${where} ${host.toUrl()} is refused: ${refusal}`);
  }

  private covers(address: string): boolean {
    return this.networks.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
  }
}

/**
 * Reads one allow-list entry: `loopback`, `private`, an IP address, or a CIDR such as `10.1.0.0/16` or
 * `fd12:3456::/32`.
 *
 * @throws MmmqValidationError saying what is wrong with it
 */
export function parseAllowedNetwork(entry: unknown): AllowedNetwork {
  if (entry === LOOPBACK_NETWORKS || entry === PRIVATE_NETWORKS) return entry;
  const usage = `must be "${LOOPBACK_NETWORKS}", "${PRIVATE_NETWORKS}", an IP address or a CIDR like "10.0.0.0/8"`;
  if (typeof entry !== 'string') throw new MmmqValidationError(`${usage}, got ${String(entry)}`);
  const [network, prefixText, ...rest] = entry.split('/');
  const family = isIP(network);
  if (family === 0 || rest.length > 0 || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) {
    throw new MmmqValidationError(`${usage}, got ${JSON.stringify(entry)}`);
  }
  const bits = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) throw new MmmqValidationError(`${JSON.stringify(entry)} has a prefix longer than ${bits} bits`);
  return { network, prefix };
}
