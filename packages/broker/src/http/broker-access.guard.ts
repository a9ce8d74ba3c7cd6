import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { incomingMessageOf, RequestWithRawBody } from './raw-body.reader';
import { assertUnambiguousHead } from './request-head';
import { MMMQ_HTTP_OPTIONS, ResolvedHttpOptions } from '../config/broker-options';
import { Authenticator } from '../security/authenticator';
import { bearerToken } from '../security/bearer-token';
import { rememberCaller } from '../security/caller.decorator';
import { HostPolicy } from '../security/host-policy';
import { OriginPolicy } from '../security/origin-policy';
import { ownOrigin } from '../security/own-origin';
import { RequiresRole } from '../security/requires-role.decorator';

/** The path parameter by which every consumer-scoped route names its consumer. */
export const CONSUMER_ID_PARAM = 'consumerId';

const HOW_TO_SEND_A_TOKEN = 'send "Authorization: Bearer <token>"';

/**
 * Admits a request to a broker route, in this order: its head reads one way only (400, 431), its `Host` is one
 * the broker serves (421), it is not a state-changing request from a web page of another origin than the broker's
 * own (403; the console's pages are the broker's own), its client is authenticated (401), its token has the
 * route's role (403), and, on a route whose path names a consumer (`:consumerId`), the token may act for that
 * consumer (403, `auth.tokens[].consumers`). Topic limits of publish tokens, and consumer ids or topic patterns
 * given in a body, are checked once the body is read.
 */
@Injectable()
export class BrokerAccessGuard implements CanActivate {
  private readonly hosts: HostPolicy;
  private readonly origins: OriginPolicy;
  private readonly allowedHosts: readonly string[];

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    @Inject(MMMQ_HTTP_OPTIONS) http: ResolvedHttpOptions,
  ) {
    this.hosts = new HostPolicy(http.allowedHosts);
    this.origins = new OriginPolicy(http.allowedOrigins);
    this.allowedHosts = http.allowedHosts;
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithRawBody>();
    const message = incomingMessageOf(request);
    assertUnambiguousHead(message);
    this.hosts.check(message.headers.host);
    // The own origin matters only against an `Origin` header (browsers); other clients send none, and skip the URL parse.
    const own = message.headers.origin === undefined ? undefined : ownOrigin(message, this.allowedHosts);
    this.origins.check(message.method, message.headers, own);
    const token = bearerToken(message.headers.authorization);
    const principal = this.authenticator.authenticate(token, message.socket?.remoteAddress, HOW_TO_SEND_A_TOKEN);
    const role = this.reflector.getAllAndOverride(RequiresRole, [context.getHandler(), context.getClass()]);
    if (role === undefined) {
      throw new Error(`${context.getClass().name}.${context.getHandler().name} has no @RequiresRole; it stays closed`);
    }
    principal.assertHas(role);
    const consumerId = (request as { params?: Record<string, unknown> }).params?.[CONSUMER_ID_PARAM];
    if (typeof consumerId === 'string') principal.assertMayActFor(consumerId);
    rememberCaller(request, principal);
    return true;
  }
}
