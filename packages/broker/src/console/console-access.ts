import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { assertUnambiguousHead } from '../http/request-head';
import { MMMQ_HTTP_OPTIONS, ResolvedHttpOptions } from '../config/broker-options';
import { Authenticator } from '../security/authenticator';
import { ADMIN_ROLE } from '../security/broker-role';
import { HostPolicy } from '../security/host-policy';
import { isLoopbackAddress } from '../security/loopback-address';
import { MMMQ_CONSOLE_OPTIONS, ResolvedConsoleOptions } from './console.options';

/**
 * Who may load the console's files. They hold no data: every number on its pages comes from the admin API, with
 * that API's checks. Still, the console is only served where it can work: when it is enabled, to a `Host` the
 * broker serves (421 otherwise, as every route), and either to loopback clients of a broker without tokens or,
 * with tokens, while one of them has the `admin` role (the page asks for it).
 */
@Injectable()
export class ConsoleAccess {
  private readonly hosts: HostPolicy;

  constructor(
    @Inject(MMMQ_CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
    @Inject(MMMQ_HTTP_OPTIONS) http: ResolvedHttpOptions,
    private readonly authenticator: Authenticator,
  ) {
    this.hosts = new HostPolicy(http.allowedHosts);
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  /**
   * Why the console is not served to this request, for a 404 page; undefined when it is.
   * @throws HostNotAllowedError, or the errors of a request head that reads two ways
   */
  refusal(request: IncomingMessage): string | undefined {
    assertUnambiguousHead(request);
    this.hosts.check(request.headers.host);
    if (!this.options.enabled) return 'The console is turned off on this broker (console.enabled is false).';
    if (this.authenticator.required) {
      if (this.authenticator.anyTokenHas(ADMIN_ROLE)) return undefined;
      return 'This broker requires tokens, and none has the admin role the console needs: add one to auth.tokens with roles ["admin"].';
    }
    if (isLoopbackAddress(request.socket?.remoteAddress)) return undefined;
    return 'This broker has no tokens configured (auth.tokens), so it serves loopback clients only; add an admin token to use the console from another machine.';
  }
}
