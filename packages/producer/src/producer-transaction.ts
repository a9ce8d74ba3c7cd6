import type { AnyEvents, EventMap, EventMessage, EventTopic, PublishedMessage } from '@mmmq/core';
import { TransactionEndedError } from './errors/transaction-ended.error';
import type { ProduceOptions } from './produce-options';
import { messageFromArguments, OutgoingMessage, prepareBatchMessage } from './outgoing-message';

/**
 * The `tx` that the callback of `Producer.transaction()` receives: it collects messages, for any topics, that are
 * committed together once the callback resolves. Typed by the producer's event map, like `produce()`.
 */
export interface ProducerTransaction<E extends EventMap = AnyEvents> {
  /**
   * Adds a message to the transaction and returns its id (the given one, or a random UUID assigned now). Nothing
   * is sent before the callback resolves.
   * @throws MmmqValidationError prefixed `messages[i]:` (`i` = its index in the transaction) for an invalid
   *   topic, id, headers or content, checked at once as `produce()` checks them; the message is not added
   * @throws TransactionEndedError once the callback has settled
   */
  produce<K extends EventTopic<E>>(topic: K, content: E[K], options?: ProduceOptions): string;
  /** Adds a message given as `{ topic, content, id?, headers? }`; see the other overload. */
  produce(message: EventMessage<E>): string;
}

/** What `Producer.transaction()` resolves with, once every message of the transaction is durable. */
export interface TransactionResult<R> {
  /** What the callback resolved with. */
  result: R;
  /** Where each message was stored, in `tx.produce()` order; `[]` when the callback produced nothing. */
  published: PublishedMessage[];
}

/** How the callback of a transaction settled. */
type Ending = 'resolved' | 'threw';

/** Collects the messages of one transaction until its callback settles. */
export class TransactionCollector<E extends EventMap = AnyEvents> implements ProducerTransaction<E> {
  private readonly messages: OutgoingMessage[] = [];
  private ending?: Ending;

  produce<K extends EventTopic<E>>(topic: K, content: E[K], options?: ProduceOptions): string;
  produce(message: EventMessage<E>): string;
  produce(topicOrMessage: unknown, content?: unknown, options?: ProduceOptions): string {
    if (this.ending !== undefined) throw ended(this.ending, topicOrMessage);
    const message = messageFromArguments(topicOrMessage, content, options);
    const outgoing = prepareBatchMessage(message, this.messages.length);
    this.messages.push(outgoing);
    return outgoing.id;
  }

  /** Refuses every later `produce()` and hands over the messages collected, in order. */
  end(ending: Ending): OutgoingMessage[] {
    this.ending ??= ending;
    return [...this.messages];
  }
}

function ended(ending: Ending, topicOrMessage: unknown): TransactionEndedError {
  const topic = typeof topicOrMessage === 'string' ? topicOrMessage : (topicOrMessage as { topic?: unknown })?.topic;
  const what = typeof topic === 'string' ? `a message for ${topic}` : 'a message';
  const fate =
    ending === 'resolved' ? 'the transaction was sent without this message' : 'nothing of it was sent, and neither is this message';
  return new TransactionEndedError(
    `Cannot add ${what} to a transaction whose callback already ${ending}: ${fate}. Call tx.produce() only ` +
      'while the callback runs, and await the work that calls it before the callback returns.',
  );
}
