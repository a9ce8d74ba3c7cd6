/**
 * Provided (`true`) by `mmmq asyncapi` around the application module it describes: the application is created and
 * initialised so that its listeners are found, but nothing is subscribed and no broker is contacted. A registered
 * symbol, so that two copies of this package agree on it.
 */
export const MMMQ_DESCRIBE_ONLY: unique symbol = Symbol.for('@mmmq/core:describe-only') as never;
