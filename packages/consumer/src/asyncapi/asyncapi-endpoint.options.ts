import { type ResolvedAsyncApiRoute, resolveAsyncApiRoute } from '@mmmq/core/internal';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';

/**
 * The consumer's `asyncapi` option (core's `AsyncApiRouteOptions`): off unless given, `true` or an object.
 * @throws InvalidConsumerOptionsError naming the `asyncapi` option that is wrong
 */
export function resolveAsyncApiEndpoint(asyncapi: unknown): ResolvedAsyncApiRoute {
  return resolveAsyncApiRoute(asyncapi, InvalidConsumerOptionsError);
}
