import { LookupAddress, promises as dns } from 'node:dns';
import { isIP, LookupFunction } from 'node:net';
import { Host } from '@mmmq/core';
import { Injectable, Logger } from '@nestjs/common';
import { legacyIPv4 } from './address-class';
import { PushTargetPolicy, PushTargetRefusedError } from './push-target-policy';

/**
 * Registration waits this long for a host name to resolve; after that it is accepted (and checked when pushed to),
 * so a dead resolver slows a registration down by this much at most.
 */
export const DEFAULT_PUSH_TARGET_LOOKUP_TIMEOUT_MS = 2000;

/** Resolves host names the way sockets do (`getaddrinfo`, every address). A provider, so tests can replace DNS. */
@Injectable()
export class PushTargetResolver {
  resolve(hostname: string): Promise<LookupAddress[]> {
    return dns.lookup(hostname, { all: true, verbatim: true });
  }
}

/**
 * Applies the {@link PushTargetPolicy} where host names meet addresses: when a dispatcher is registered (its
 * name is resolved then) and on every connection a push opens (the sockets resolve through {@link lookup}, so a
 * name that resolves somewhere refused later is refused then, before anything is sent).
 */
@Injectable()
export class PushTargetGuard {
  private readonly logger = new Logger(PushTargetGuard.name);
  /** Verdicts on hosts given as IP addresses, which sockets connect to without a lookup. */
  private readonly literalVerdicts = new WeakMap<Host, string | null>();

  constructor(
    readonly policy: PushTargetPolicy,
    private readonly resolver: PushTargetResolver,
    private readonly lookupTimeoutMs: number = DEFAULT_PUSH_TARGET_LOOKUP_TIMEOUT_MS,
  ) {}

  /**
   * Refuses a host given as a refused address or metadata name, or a name that resolves to a refused address. A
   * name that does not resolve now (or not within the lookup timeout) is accepted: it is checked at push time.
   *
   * @throws PushTargetRefusedError naming the host and why
   */
  async checkRegistration(host: Host, where = 'host'): Promise<void> {
    this.policy.assertHostAllowed(host, where);
    if (isIP(host.address) || legacyIPv4(host.address) !== undefined) return;
    const addresses = await this.resolveForRegistration(host.address);
    const refusal = addresses && this.refusalOfResolved(host.address, addresses);
    if (refusal) throw new PushTargetRefusedError(`${where} ${host.toUrl()} is refused: ${refusal}`);
  }

  /** Why a push to `host` must not go out, judged without DNS (names are judged by {@link lookup}); undefined if it may. */
  refusalBeforePush(host: Host): string | undefined {
    let verdict = this.literalVerdicts.get(host);
    if (verdict === undefined) {
      verdict = this.policy.refusalOfHost(host) ?? null;
      this.literalVerdicts.set(host, verdict);
    }
    return verdict ?? undefined;
  }

  /** `lookup` for the push agents' sockets: resolves, and fails the connection if any address is refused. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolver.resolve(hostname).then(
      (resolved) => {
        const refusal = this.refusalOfResolved(hostname, resolved);
        if (refusal) return callback(new PushTargetRefusedError(`push target ${hostname} is refused: ${refusal}`), '', 0);
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const addresses = family ? resolved.filter((entry) => entry.family === family) : resolved;
        if (addresses.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          return callback(error, '', 0);
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };

  /** A name is refused if any of its addresses is: which one a connection picks is not ours to choose. */
  private refusalOfResolved(name: string, addresses: readonly LookupAddress[]): string | undefined {
    for (const { address } of addresses) {
      const refusal = this.policy.refusalOfAddress(address);
      if (refusal) return `${name} resolves to ${addresses.map((entry) => entry.address).join(', ')}, and ${refusal}`;
    }
    return undefined;
  }

  private async resolveForRegistration(name: string): Promise<LookupAddress[] | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.lookupTimeoutMs)));
    try {
      const addresses = await Promise.race([this.resolver.resolve(name), timeout]);
      if (addresses === undefined)
        this.logger.warn(`${name} did not resolve within ${this.lookupTimeoutMs} ms; it is checked when pushed to`);
      return addresses;
    } catch (error) {
      this.logger.warn(`${name} does not resolve now (${(error as Error).message}); it is checked when pushed to`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
