import { types } from 'node:util';
import type { AsyncApiOperation } from './asyncapi-operation';

/**
 * The key under which a provider, or a microservice strategy (`@mmmq/microservices`' MmmqServer, one of the
 * application's RPC targets), offers the operations it declares to the application's AsyncAPI document. A registered
 * symbol, so that two copies of this package agree on it.
 */
export const ASYNCAPI_CONTRIBUTOR: unique symbol = Symbol.for('@mmmq/core:asyncapi-contributor') as never;

/** What a contributor is given: the application's controller instances, where `@EventPattern` handlers are declared. */
export interface AsyncApiScope {
  controllers: readonly object[];
}

/** Something that declares messaging operations: the consumer's listeners, a producer's events, a strategy's patterns. */
export interface AsyncApiContributor {
  [ASYNCAPI_CONTRIBUTOR](scope: AsyncApiScope): readonly AsyncApiOperation[];
}

/**
 * The contributor `target` is, if it is one. A proxy is none: an auto-mock or a lazy client may answer every property
 * with a function, and only MMMQ's own contributors may be called.
 */
export function asyncApiContributorOf(target: unknown): AsyncApiContributor | undefined {
  if (typeof target !== 'object' || target === null || types.isProxy(target)) return undefined;
  return typeof (target as Partial<AsyncApiContributor>)[ASYNCAPI_CONTRIBUTOR] === 'function' ? (target as AsyncApiContributor) : undefined;
}
