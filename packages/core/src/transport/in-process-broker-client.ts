import type { InProcessBrokerTransport } from './in-process-broker-transport';

/**
 * The key under which a Nest microservice strategy (`@mmmq/microservices`' MmmqServer) offers its
 * {@link InProcessBrokerHooks}. A strategy is never handed the application's container: Nest only hands the
 * strategy to the container (its RPC targets), where `MmmqBrokerModule` finds it. A registered symbol, so that two
 * copies of this package agree on it.
 */
export const IN_PROCESS_BROKER_CLIENT: unique symbol = Symbol.for('@mmmq/core:in-process-broker-client') as never;

/**
 * What the broker of an application tells a microservice strategy of that application, in this order: `attach`
 * when the strategy joins the application (`connectMicroservice`, `createMicroservice`); `started` once every
 * module is initialised, the broker's dispatchers loaded (the strategy may subscribe from then on; a rejection fails
 * the application's bootstrap); `stopping` when the application shuts down, before the broker stops (the strategy
 * drains its handlers and settles what they handled).
 */
export interface InProcessBrokerHooks {
  attach(broker: InProcessBrokerTransport): void;
  started(): Promise<void>;
  stopping(): Promise<void>;
}

/** A microservice strategy that can receive from the broker of its own application. */
export interface InProcessBrokerClient {
  readonly [IN_PROCESS_BROKER_CLIENT]: InProcessBrokerHooks;
}

/** The hooks `target` offers, if it is an {@link InProcessBrokerClient}. */
export function inProcessBrokerHooksOf(target: unknown): InProcessBrokerHooks | undefined {
  if (typeof target !== 'object' || target === null) return undefined;
  const hooks = (target as Partial<InProcessBrokerClient>)[IN_PROCESS_BROKER_CLIENT];
  return typeof hooks?.attach === 'function' ? hooks : undefined;
}
