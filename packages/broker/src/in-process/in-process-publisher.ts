import { publishBatchBody, publishBody, type PublishedMessage, type TransportMessage, type TransportPublisher } from '@mmmq/core';
import type { FrontDispatcher } from '../publish/front-dispatcher';
import type { PublishRequestParser } from '../publish/publish-request.parser';

/**
 * Publishes into the broker of this application through its intake, with no HTTP: each message is checked by the
 * same parser as `POST /mmmq/messages` (so limits and errors are the same; a refusal is an `MmmqValidationError`,
 * which the producer does not retry), then committed by the FrontDispatcher. A publish resolves once the message
 * is durable, as an ACK does; a batch is one atomic commit.
 */
export class InProcessPublisher implements TransportPublisher {
  constructor(
    private readonly parser: PublishRequestParser,
    private readonly intake: FrontDispatcher,
  ) {}

  publish(message: TransportMessage): Promise<PublishedMessage> {
    return this.intake.publish(this.parser.parseSingle(Buffer.from(publishBody(message))));
  }

  publishBatch(messages: readonly TransportMessage[]): Promise<PublishedMessage[]> {
    return this.intake.publishBatch(this.parser.parseBatch(Buffer.from(publishBatchBody(messages).join(''))));
  }

  /** Holds nothing: the broker's own shutdown settles what is in flight. */
  async close(): Promise<void> {}
}
