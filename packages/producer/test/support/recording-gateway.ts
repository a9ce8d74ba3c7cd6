import type { PublishedMessage, TransportPublisher } from '@mmmq/core';
import { Test } from '@nestjs/testing';
import { MmmqProducerModule, MmmqProducerOptions, Producer } from '../../src';
import { TransportGateway } from '../../src/gateway/transport-gateway';
import type { OutgoingMessage } from '../../src/outgoing-message';
import { ProducerApp, RecordingLogger } from './producer-app';

/** What the recording publisher does with one request: acknowledge it, or fail the attempt with `error`. */
export type GatewayReply = 'ack' | Error;

/**
 * A publisher in memory that records every request (one entry per attempt, the messages it carried) and
 * answers it as scripted: the n-th request gets `replies[n]`, every request after the last gets the last again.
 * Acknowledged messages get consecutive offsets per topic, as on the broker.
 */
export class RecordingGateway implements TransportPublisher {
  readonly requests: OutgoingMessage[][] = [];
  private readonly offsets = new Map<string, number>();

  constructor(private readonly replies: GatewayReply[] = ['ack']) {}

  async publish(message: OutgoingMessage): Promise<PublishedMessage> {
    const [published] = await this.publishBatch([message]);
    return published;
  }

  async publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]> {
    this.requests.push([...messages]);
    const reply = this.replies[Math.min(this.requests.length, this.replies.length) - 1];
    if (reply !== 'ack') throw reply;
    return messages.map(({ id, topic }) => {
      const offset = this.offsets.get(topic) ?? 0;
      this.offsets.set(topic, offset + 1);
      return { id, topic, offset, deliveryMode: 'persistent' as const };
    });
  }

  async close(): Promise<void> {}
}

/** A producer module that publishes through `publisher`, logging into a {@link RecordingLogger}. */
export async function startProducerWith(publisher: TransportPublisher, options: MmmqProducerOptions = {}): Promise<ProducerApp> {
  const logger = new RecordingLogger();
  const module = await Test.createTestingModule({
    imports: [MmmqProducerModule.forRoot({ broker: 'http://127.0.0.1:1', retryDelayMs: 1, ...options })],
  })
    .overrideProvider(TransportGateway)
    // As the MMMQ broker's publishers: its errors reach the retry policy as they are.
    .useValue(new TransportGateway(publisher, 'recording', { kind: 'publisher' }))
    .setLogger(logger)
    .compile();
  await module.init();
  return { producer: module.get(Producer), logger, module, close: () => module.close() };
}
