import { randomBytes } from 'node:crypto';
import { listenerNames, RabbitMqTransport } from '@mmmq/rabbitmq';
import { ChannelModel, connect } from 'amqplib';
import type { ConformanceDeadLetter, TransportSession, TransportUnderTest } from './transport-under-test';

/** The shared RabbitMQ of the test machine (never restarted by a test). */
export const SHARED_RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** Short retry delays: the suite is about where a NACKed message goes, not how long it waits. */
const RETRY_DELAYS_MS = [50, 100, 200];

/**
 * `RabbitMqTransport` on the shared RabbitMQ, with an exchange and queue prefix of its own per session, deleted at
 * the end of the session.
 */
export const rabbitMqTransport: TransportUnderTest = {
  name: 'rabbitmq',
  start: startRabbitMqSession,
  exceptions: {
    orderAcrossRetries:
      'a NACKed message waits in a retry queue (TTL) and goes back to the end of its quorum queue, so later messages ' +
      'are handled before its retry; messages that are not retried keep their order',
    brokerRestart:
      'the shared RabbitMQ on 5672 must never be restarted by a test, and no RabbitMQ node of the suite’s own ' +
      '(packages/test-support/src/rabbitmq) is on main yet; reconnection is tested by @mmmq/rabbitmq itself',
    publishBeforeSubscription:
      'a message is routed to the queues bound when it is published: with no consumer id subscribed yet, nothing holds it',
  },
};

async function startRabbitMqSession(): Promise<TransportSession> {
  const suffix = randomBytes(4).toString('hex');
  const transport = new RabbitMqTransport({
    url: SHARED_RABBITMQ_URL,
    exchange: `conformance-${suffix}`,
    queuePrefix: `conformance-${suffix}.`,
    retry: { delaysMs: RETRY_DELAYS_MS },
  });
  const deadLetters = new DeadLetterReader();
  let closed: Promise<void> | undefined;
  return {
    producerOptions: () => ({ transport }),
    consumerOptions: () => ({ transport }),
    imports: () => [],
    ready: async () => undefined,
    deadLetters: (consumerId) => deadLetters.read(listenerNames(transport.options, consumerId).deadLetterQueue),
    close() {
      closed ??= (async () => {
        await deadLetters.close();
        await transport.deleteDeclared();
      })();
      return closed;
    },
  };
}

/**
 * Reads dead-letter queues with a connection of its own. Each read takes what arrived since the last one (acknowledged,
 * so a message is never cycled back into its quorum queue by a read) and returns everything read so far.
 */
class DeadLetterReader {
  private connection?: Promise<ChannelModel>;
  private readonly seen = new Map<string, ConformanceDeadLetter[]>();

  async read(queue: string): Promise<ConformanceDeadLetter[]> {
    this.connection ??= connect(SHARED_RABBITMQ_URL);
    const channel = await (await this.connection).createChannel();
    // checkQueue closes the channel with an error when the queue does not exist: expected, not a crash.
    channel.on('error', () => undefined);
    const letters = this.seen.get(queue) ?? [];
    this.seen.set(queue, letters);
    try {
      // The queue exists once a listener subscribed; before that there is nothing to read.
      if ((await channel.checkQueue(queue).catch(() => undefined)) === undefined) return [...letters];
      for (let message = await channel.get(queue); message !== false; message = await channel.get(queue)) {
        letters.push({ content: JSON.parse(message.content.toString('utf8')), headers: { ...message.properties.headers } });
        channel.ack(message);
      }
    } finally {
      await channel.close().catch(() => undefined);
    }
    return [...letters];
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await (await connection?.catch(() => undefined))?.close();
  }
}
