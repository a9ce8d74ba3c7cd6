import { randomUUID } from 'node:crypto';
import {
  Acknowledgement,
  ConsumerAcknowledgement,
  TransportDelivery,
  TransportListener,
  TransportMessage,
  TransportPublisher,
  TransportSubscriber,
} from '@mmmq/core';
import { RabbitMqTransport, RabbitMqTransportOptions } from '../../src';
import { TcpProxy } from './tcp-proxy';

/** The shared RabbitMQ of the test machine (guest/guest); never restarted by tests. */
export const RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** A transport on its own exchange and queue prefix, so tests sharing the broker never see each other's messages. */
export function testTransport(options: Partial<RabbitMqTransportOptions> = {}): RabbitMqTransport {
  const suffix = randomUUID().slice(0, 8);
  return new RabbitMqTransport({
    url: RABBITMQ_URL,
    exchange: `mmmq-test-${suffix}`,
    queuePrefix: `mmmq-test-${suffix}.`,
    retry: { delaysMs: [50, 100, 150] },
    ...options,
  });
}

export function message(topic: string, content: unknown, extra: Partial<TransportMessage> = {}): TransportMessage {
  return { id: randomUUID(), topic, headers: undefined, content: JSON.stringify(content), deliveryMode: undefined, ...extra };
}

export function listener(consumerId: string, pattern: string, extra: Partial<TransportListener> = {}): TransportListener {
  return { consumerId, pattern, concurrency: 1, ackMode: 'auto', ...extra };
}

export const ACK: ConsumerAcknowledgement = { acknowledgement: Acknowledgement.ACK };

/** Records every delivery and answers with `answer` (ACK by default). */
export class RecordingHandler {
  readonly received: TransportDelivery[] = [];
  constructor(
    private readonly answer: (delivery: TransportDelivery) => ConsumerAcknowledgement | Promise<ConsumerAcknowledgement> = () => ACK,
  ) {}

  readonly handle = async (delivery: TransportDelivery): Promise<ConsumerAcknowledgement> => {
    this.received.push(delivery);
    return this.answer(delivery);
  };

  ids(): string[] {
    return this.received.map((delivery) => delivery.id);
  }
}

/** Closes what a test opened, then removes the exchanges and queues its transport declared. */
export class TestResources {
  private readonly closers: Array<{ close(): Promise<void> }> = [];
  constructor(readonly transport: RabbitMqTransport) {}

  publisher(): TransportPublisher {
    return this.keep(this.transport.createPublisher());
  }

  subscriber(): TransportSubscriber {
    return this.keep(this.transport.createSubscriber());
  }

  keep<T extends { close(): Promise<void> }>(closable: T): T {
    this.closers.push(closable);
    return closable;
  }

  async dispose(): Promise<void> {
    await Promise.all(this.closers.splice(0).map((closable) => closable.close()));
    await this.transport.deleteDeclared();
  }
}

/**
 * Test resources on a transport that reaches the shared RabbitMQ through a {@link TcpProxy} (the test's way to cut or
 * refuse its connections), reconnecting fast (20 ms doubling to 100 ms unless `options` say otherwise).
 */
export async function proxiedResources(
  options: Partial<RabbitMqTransportOptions> = {},
): Promise<{ proxy: TcpProxy; resources: TestResources }> {
  const proxy = new TcpProxy('127.0.0.1', 5672);
  const port = await proxy.start();
  const url = `amqp://guest:guest@127.0.0.1:${port}`;
  return { proxy, resources: new TestResources(testTransport({ url, reconnect: { initialMs: 20, maxMs: 100 }, ...options })) };
}
