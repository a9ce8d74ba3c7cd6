import type { MessageHeaders } from '@mmmq/core';

/** Optional parts of a message given beside its topic and content. */
export interface ProduceOptions {
  /**
   * The message id: 1–256 printable ASCII characters, no spaces. A random UUID when absent. Give your own (an
   * order number, an outbox row id) to let consumers drop duplicates across separate `produce()` calls too.
   */
  id?: string;
  /** Typed message properties (name → string, finite number or boolean), delivered with the message. */
  headers?: MessageHeaders;
}
