import {
  type CancelledScheduledMessage,
  type PublishedMessage,
  type ScheduledMessageRef,
  type TransportMessage,
  type TransportPublisher,
} from '@mmmq/core';
import { cancelRequest } from '../publish/scheduled-cancellation';
import type { ScheduledCanceller } from '../publish/scheduled-canceller';
import type { PublishIntake } from '../publish/publish-intake';
import type { PublishRequestParser } from '../publish/publish-request.parser';
import type { PublishableMessage } from '../format/publishable-message';

/**
 * Publishes into the broker of this application through its intake, with no HTTP and no JSON body: each message's
 * fields are checked by the same parser as `POST /mmmq/messages` (so limits and errors are the same; a refusal is
 * an `MmmqValidationError`, which the producer does not retry), then committed by the PublishIntake. A publish
 * resolves once the message is durable, as an ACK does; a batch is one atomic commit. Publishes are committed in
 * the order they were called, as over the publish stream.
 */
export class InProcessPublisher implements TransportPublisher {
  /** Settles once the publish called last has its place in the commit order (as a publish stream connection's). */
  private ordering: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly parser: PublishRequestParser,
    private readonly intake: PublishIntake,
    private readonly canceller: ScheduledCanceller,
  ) {}

  publish(message: TransportMessage): Promise<PublishedMessage> {
    return this.inOrder([this.parser.parseTransportMessage(message)]).then(([published]) => published);
  }

  publishBatch(messages: readonly TransportMessage[]): Promise<PublishedMessage[]> {
    return this.inOrder(this.parser.parseTransportBatch(messages));
  }

  /**
   * As `POST /mmmq/scheduled/cancel` (the same checks and errors), after everything published before it: a message
   * published and then cancelled is found.
   */
  cancelScheduled(topic: string, message: ScheduledMessageRef): Promise<CancelledScheduledMessage> {
    const wanted = cancelRequest({ topic, ...message });
    const cancelled = this.ordering.then(() => this.canceller.cancel(wanted));
    return cancelled;
  }

  /** Holds nothing: the broker's own shutdown settles what is in flight. */
  async close(): Promise<void> {}

  /**
   * Commits `messages` after everything published before them, as the call order says: the producer keeps several
   * batches of a topic in flight (`batching.maxInFlight`), and taking a place in the commit order may wait (a new
   * topic's subscriptions attaching, a pending id), so each publish takes its place only once the one before has.
   */
  private inOrder(messages: PublishableMessage[]): Promise<PublishedMessage[]> {
    const placed = this.ordering.then(() => this.intake.enqueue(messages));
    this.ordering = placed.catch(() => undefined);
    return placed.then((enqueued) => enqueued.acknowledged);
  }
}
