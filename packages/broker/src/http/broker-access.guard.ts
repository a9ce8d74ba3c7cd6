import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { incomingMessageOf, RequestWithRawBody } from './raw-body.reader';
import { MMMQ_HTTP_OPTIONS, ResolvedHttpOptions } from '../config/broker-options';
import { Authenticator } from '../security/authenticator';
import { BrokerAccess } from './broker-access';
import { rememberCaller } from '../security/caller.decorator';
import { RequiresRole } from '../security/requires-role.decorator';

/** The path parameter by which every consumer-scoped route names its consumer. */
export const CONSUMER_ID_PARAM = 'consumerId';

/**
 * Admits a request to a broker route by the rules of {@link BrokerAccess}, with the role the route's
 * `@RequiresRole` names and, on a route whose path names a consumer (`:consumerId`), that consumer. Topic limits of
 * publish tokens, and consumer ids or topic patterns given in a body, are checked once the body is read.
 */
@Injectable()
export class BrokerAccessGuard implements CanActivate {
  private readonly access: BrokerAccess;

  constructor(
    private readonly reflector: Reflector,
    authenticator: Authenticator,
    @Inject(MMMQ_HTTP_OPTIONS) http: ResolvedHttpOptions,
  ) {
    this.access = new BrokerAccess(authenticator, http);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithRawBody>();
    const role = this.reflector.getAllAndOverride(RequiresRole, [context.getHandler(), context.getClass()]);
    if (role === undefined) {
      throw new Error(`${context.getClass().name}.${context.getHandler().name} has no @RequiresRole; it stays closed`);
    }
    const consumerId = (request as { params?: Record<string, unknown> }).params?.[CONSUMER_ID_PARAM];
    const principal = this.access.admit(incomingMessageOf(request), role, typeof consumerId === 'string' ? consumerId : undefined);
    rememberCaller(request, principal);
    return true;
  }
}
