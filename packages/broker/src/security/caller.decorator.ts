import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Principal } from './principal';

const CALLERS = new WeakMap<object, Principal>();

/** Remembers who sent `request`; done by `BrokerAccessGuard` once the request is authenticated. */
export function rememberCaller(request: object, principal: Principal): void {
  CALLERS.set(request, principal);
}

/** Injects the {@link Principal} `BrokerAccessGuard` authenticated, for checks that need the body (publish topics). */
export const Caller = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = CALLERS.get(context.switchToHttp().getRequest<object>());
  if (principal === undefined) throw new Error('@Caller() on a route that BrokerAccessGuard did not authenticate');
  return principal;
});
