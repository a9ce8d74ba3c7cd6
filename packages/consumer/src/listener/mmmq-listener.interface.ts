import type { TopicPattern } from '@mmmq/core';
import type { Type } from '@nestjs/common';
import type { MessageContext } from './message-context';

/**
 * The class style of a listener, exported as `MMMQListener<T>`: a provider or controller whose `handle()` receives
 * each message of the topics its `listens()` returns, discovered at bootstrap. The `@MMMQListener` class decorator
 * is optional: it carries options (`consumerId`, `concurrency`, `ackMode`, …) and may name the pattern instead of
 * `listens()`. A provider with a `handle()` method but neither `listens()` nor the decorator is not a listener.
 */
export interface MmmqListenerContract<T = unknown> {
  /**
   * The topics to receive (`'order.*'`), read once at bootstrap. Optional with the class decorator, whose pattern is
   * then enough; when both name one they must agree, or bootstrap fails.
   */
  listens?(): TopicPattern | string;
  /**
   * Handles one message. Returning (or throwing) a `NonRetriableError` dead-letters it at once; throwing
   * anything else asks the broker to retry; returning anything else acknowledges it.
   */
  handle(content: T, context: MessageContext): unknown;
  /**
   * Class the content is converted to (class-transformer) and validated against (class-validator) before
   * `handle` runs. Only needed when `handle`'s parameter is undecorated: TypeScript records parameter types
   * only for decorated methods, so `handle(@Payload() order: Order)` is read at runtime and
   * `handle(order: Order)` is not. Default: the recorded type, otherwise the content passes as parsed JSON.
   */
  readonly contentType?: Type<T>;
}
