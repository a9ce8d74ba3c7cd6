/**
 * Building blocks for MMMQ's own integrations (`@mmmq/microservices`), outside Nest's dependency injection. Not a
 * public API: it may change in any release. Applications use `MmmqConsumerModule` and `@MMMQListener`.
 */
export { ConsumerRuntime } from './runtime/consumer-runtime';
export type { ListenerDefinition } from './listener/listener-definition';
export type { ResolvedConsumerOptions } from './config/resolved-consumer-options';
export { assertListenerConsumerId, defaultConsumerId } from './listener/consumer-id.naming';
export { verdictOf } from './handling/listener-verdict';
export { resolveListenerConfig } from './runtime/mmmq-consumer-options.resolver';
export { toKebabCase } from './listener/consumer-id.naming';
export { listenerOrderOf } from './listener/listener-order';
export { describeViolations } from './handling/content-converter';
export { contentTypeOf } from './listener/content-type';
