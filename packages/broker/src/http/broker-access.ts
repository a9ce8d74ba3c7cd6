import type { IncomingMessage } from 'node:http';
import { assertUnambiguousHead } from './request-head';
import type { ResolvedHttpOptions } from '../config/broker-options';
import type { Authenticator } from '../security/authenticator';
import { bearerToken } from '../security/bearer-token';
import type { BrokerRole } from '../security/broker-role';
import { HostPolicy } from '../security/host-policy';
import { OriginPolicy } from '../security/origin-policy';
import { ownOrigin } from '../security/own-origin';
import type { Principal } from '../security/principal';

const HOW_TO_SEND_A_TOKEN = 'send "Authorization: Bearer <token>"';

/**
 * The access rules of every broker route, in this order: its head reads one way only (400, 431), its `Host` is one
 * the broker serves (421), it is not a state-changing request from a web page of another origin than the broker's
 * own (403; the console's pages are the broker's own), its client is authenticated (401), its token has the route's
 * role (403), and, on a route whose path names a consumer, the token may act for that consumer (403,
 * `auth.tokens[].consumers`). One implementation for the Nest routes (`BrokerAccessGuard`) and the routes served at
 * the level of Node's server (the publish routes, `PublishRoutes`).
 */
export class BrokerAccess {
  private readonly hosts: HostPolicy;
  private readonly origins: OriginPolicy;
  private readonly allowedHosts: readonly string[];

  constructor(
    private readonly authenticator: Authenticator,
    http: Pick<ResolvedHttpOptions, 'allowedHosts' | 'allowedOrigins'>,
  ) {
    this.hosts = new HostPolicy(http.allowedHosts);
    this.origins = new OriginPolicy(http.allowedOrigins);
    this.allowedHosts = http.allowedHosts;
  }

  /**
   * @param consumerId the consumer the route's path names, if it names one
   * @returns who sent the request, for the checks that need its body (the topics of a publish)
   * @throws MmmqValidationError, TooManyHeaderFieldsError, HostNotAllowedError, CrossOriginRequestError,
   *   AuthenticationRequiredError, AccessDeniedError
   */
  admit(message: IncomingMessage, role: BrokerRole, consumerId?: string): Principal {
    assertUnambiguousHead(message);
    this.hosts.check(message.headers.host);
    // The own origin matters only against an `Origin` header (browsers); other clients send none, and skip the URL parse.
    const own = message.headers.origin === undefined ? undefined : ownOrigin(message, this.allowedHosts);
    this.origins.check(message.method, message.headers, own);
    const token = bearerToken(message.headers.authorization);
    const principal = this.authenticator.authenticate(token, message.socket?.remoteAddress, HOW_TO_SEND_A_TOKEN);
    principal.assertHas(role);
    if (consumerId !== undefined) principal.assertMayActFor(consumerId);
    return principal;
  }
}
