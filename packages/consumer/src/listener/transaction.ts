import { MessageHeaders, PublishRequest, Topic } from '@mmmq/core';
import { SettlementError } from '../errors/settlement.error';

/** What `tx.produce()` may say about an output besides its topic and content. */
export interface TransactionProduceOptions {
  /** The output's id; the broker assigns a UUID when absent. */
  id?: string;
  headers?: MessageHeaders;
}

/**
 * The outputs of one transaction (`context.transaction(async (tx) => …)`): collected while its callback runs, then
 * published together with the input's settlement in one broker commit — all visible and the input settled, or
 * nothing published and the input redelivered.
 */
export class Transaction {
  readonly #messages: PublishRequest[] = [];
  #closed = false;

  constructor(private readonly where: string) {}

  /**
   * Adds an output, published when the transaction commits. `content` is sent as JSON.
   * @throws InvalidTopicError for a name the broker would refuse; SettlementError once the callback returned
   */
  produce(topic: string, content: unknown, options: TransactionProduceOptions = {}): void {
    if (this.#closed) {
      throw new SettlementError(`${this.where} called tx.produce() after its transaction callback returned; nothing more can join it`);
    }
    if (content === undefined) throw new SettlementError(`${this.where} called tx.produce('${topic}') without content`);
    this.#messages.push({
      topic: Topic.of(topic).name,
      content,
      ...(options.id === undefined ? {} : { id: options.id }),
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    });
  }

  /** Ends collecting: the outputs to commit, in the order produced. */
  close(): PublishRequest[] {
    this.#closed = true;
    return [...this.#messages];
  }
}
