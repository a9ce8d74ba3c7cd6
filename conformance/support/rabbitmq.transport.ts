import { randomBytes } from 'node:crypto';
import { RabbitMqTransport } from '@mmmq/rabbitmq';
import { connect } from 'amqplib';
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
  const exchange = `conformance-${suffix}`;
  const queuePrefix = `conformance-${suffix}.`;
  const transport = new RabbitMqTransport({ url: SHARED_RABBITMQ_URL, exchange, queuePrefix, retry: { delaysMs: RETRY_DELAYS_MS } });
  let closed: Promise<void> | undefined;
  return {
    producerOptions: () => ({ transport }),
    consumerOptions: () => ({ transport }),
    imports: () => [],
    ready: async () => undefined,
    deadLetters: (consumerId) => readDeadLetters(transport.deadLetterQueue(consumerId)),
    close() {
      closed ??= transport.deleteDeclared();
      return closed;
    },
  };
}

/** Every message of the dead-letter queue, left in it (each is taken and given back unacknowledged at the end). */
async function readDeadLetters(queue: string): Promise<ConformanceDeadLetter[]> {
  const connection = await connect(SHARED_RABBITMQ_URL);
  try {
    const channel = await connection.createChannel();
    const letters: ConformanceDeadLetter[] = [];
    for (;;) {
      const message = await channel.get(queue, { noAck: false });
      if (message === false) break;
      letters.push({ content: JSON.parse(message.content.toString('utf8')), headers: { ...message.properties.headers } });
    }
    await channel.close();
    return letters;
  } finally {
    await connection.close();
  }
}
