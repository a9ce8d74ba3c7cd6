import type { MessageHeaders } from '@mmmq/core';

/** The message id and headers an {@link MmmqRecord} publishes with its data. */
export interface MmmqRecordOptions {
  /**
   * The message id: 1–256 printable ASCII characters, no spaces. Default: a random UUID. Give your own (an order
   * number, an outbox row id) so consumers can drop duplicates across separate emits.
   */
  id?: string;
  /** Typed message properties (name → string, finite number or boolean), delivered with the message. Default none. */
  headers?: MessageHeaders;
  /**
   * `send()` only: how long to wait for the reply, in ms. Default: the producer's `DEFAULT_REQUEST_TIMEOUT_MS`
   * (30 s). On expiry the Observable errors with `RequestTimeoutError`.
   */
  timeoutMs?: number;
  /**
   * Not delivered before this many ms after the broker stores it (docs/delivery.md#scheduled-messages); `emit()`'s
   * Observable still completes once it is stored (a `send()`'s `timeoutMs` runs from the send). Not with `deliverAt`.
   * Default 0: at once.
   */
  delayMs?: number;
  /** Not delivered before this time (a `Date` or an ISO 8601 string with a zone). Not with `delayMs`. */
  deliverAt?: Date | string;
}

/**
 * Data to emit together with its message id and headers, as Nest's `RmqRecord`:
 * `client.emit('order.created', new MmmqRecord(order, { id: order.id, headers: { priority: 5 } }))`. The content
 * published is `data` (through the client's serializer); `id` and `headers` go to `Producer.produce()`.
 */
export class MmmqRecord<TData = unknown> {
  constructor(
    readonly data: TData,
    readonly options: MmmqRecordOptions = {},
  ) {}
}

/** Builds an {@link MmmqRecord} step by step, as Nest's `RmqRecordBuilder`. */
export class MmmqRecordBuilder<TData = unknown> {
  private options: MmmqRecordOptions = {};

  constructor(private data?: TData) {}

  setData(data: TData): this {
    this.data = data;
    return this;
  }

  setId(id: string): this {
    this.options = { ...this.options, id };
    return this;
  }

  setHeaders(headers: MessageHeaders): this {
    this.options = { ...this.options, headers };
    return this;
  }

  setTimeoutMs(timeoutMs: number): this {
    this.options = { ...this.options, timeoutMs };
    return this;
  }

  /** Delivered no earlier than `delayMs` after it is stored. */
  setDelayMs(delayMs: number): this {
    this.options = { ...this.options, delayMs };
    return this;
  }

  /** Delivered no earlier than `deliverAt`. */
  setDeliverAt(deliverAt: Date | string): this {
    this.options = { ...this.options, deliverAt };
    return this;
  }

  build(): MmmqRecord<TData> {
    return new MmmqRecord(this.data as TData, { ...this.options });
  }
}
