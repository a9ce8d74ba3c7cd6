import type { TopicPattern } from '@mmmq/core';
import type { Type } from '@nestjs/common';
import type { MessageContext } from './message-context';
import type { MmmqListenerOptions } from './mmmq-listener.options';

/**
 * The class style of a listener, exported as `MMMQListener<T>`: any provider or controller with a `listens()`
 * and a `handle()` method is one. TypeScript interfaces leave no trace at runtime, so discovery recognises
 * such classes by shape (both methods present), not by metadata.
 */
export interface MmmqListenerContract<T = unknown> {
  /** The topics to receive; read once at bootstrap. */
  listens(): TopicPattern | string;
  /**
   * Handles one message. Returning (or throwing) a `NonRetriableError` dead-letters it at once; throwing
   * anything else asks the broker to retry; returning anything else acknowledges it.
   */
  handle(content: T, context: MessageContext): unknown;
  /**
   * Class the content is converted to (class-transformer) and validated against (class-validator) before
   * `handle` runs. Needed here because TypeScript records `handle`'s parameter types only on decorated methods.
   * Default: the recorded parameter type if there is one, otherwise the content is passed as parsed JSON.
   */
  readonly contentType?: Type<T>;
  /** Name, consumer id, concurrency and start position, as in `@MMMQListener({...})`. */
  readonly listenerOptions?: Omit<MmmqListenerOptions, 'pattern'>;
}
