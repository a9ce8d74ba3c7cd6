import { randomBytes } from 'node:crypto';
import { listenerNames, RabbitMqTransport } from '@mmmq/rabbitmq';
import { RabbitMqNode } from '@mmmq/test-support';
import { ChannelModel, connect } from 'amqplib';
import type { ConformanceDeadLetter, SessionOptions, TransportSession, TransportUnderTest } from './transport-under-test';

/** The shared RabbitMQ of the test machine (never restarted by a test). */
export const SHARED_RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** Short retry delays: the suite is about where a NACKed message goes, not how long it waits. */
const RETRY_DELAYS_MS = [50, 100, 200];

/** Reconnection waits of a session whose node restarts. */
const RECONNECT_WHILE_RESTARTING = { initialMs: 100, maxMs: 500 };

/**
 * `RabbitMqTransport` on the shared RabbitMQ, with an exchange and queue prefix of its own per session, deleted at
 * the end of the session; a session that restarts its broker gets a RabbitMQ node of its own (`RabbitMqNode` of
 * @mmmq/test-support: own ports, data and node name), never the shared one.
 */
export const rabbitMqTransport: TransportUnderTest = {
  name: 'rabbitmq',
  start: startRabbitMqSession,
  exceptions: {
    scheduledMessages:
      'RabbitMQ delivers a message at once unless its delayed-message plugin is installed, which this transport does not ' +
      'use: a publish with delayMs / deliverAt is refused (ScheduledMessagesUnsupportedError), never delivered early',
    orderAcrossRetries:
      'a NACKed message waits in a retry queue (TTL) and goes back to the end of its quorum queue, so later messages ' +
      'are handled before its retry; messages that are not retried keep their order',
    publishBeforeSubscription:
      'a message is routed to the queues bound when it is published: with no consumer id subscribed yet, nothing holds it',
    requestReply:
      "replies travel through the MMMQ broker's reply relay, which RabbitMQ has no counterpart of here: request() is " +
      'refused with RequestReplyUnavailableError, naming the transport, before anything is published',
    activeMembers:
      'a queue shares its messages among all its consumers (single-active-consumer, which this transport does not ' +
      'declare, would give one, never N with ordered backups), and nothing caps its consumers: a listener with ' +
      'maxActiveMembers or maxMembers fails bootstrap, naming them',
    unordered:
      'a queue has no ordering keys, so unordered delivery could not keep per-key order (concurrency above 1 already ' +
      'handles messages at once): a listener with ordered: false fails bootstrap, naming it',
  },
};

async function startRabbitMqSession({ restartable = false }: SessionOptions = {}): Promise<TransportSession> {
  const node = restartable ? await RabbitMqNode.start() : undefined;
  const url = node?.amqpUrl ?? SHARED_RABBITMQ_URL;
  const suffix = randomBytes(4).toString('hex');
  const transport = new RabbitMqTransport({
    url,
    exchange: `conformance-${suffix}`,
    queuePrefix: `conformance-${suffix}.`,
    retry: { delaysMs: RETRY_DELAYS_MS },
    // Back within half a second of the restarted node answering, not after a backoff grown during its downtime.
    ...(node && { reconnect: RECONNECT_WHILE_RESTARTING }),
  });
  const deadLetters = new DeadLetterReader(url);
  let closed: Promise<void> | undefined;
  return {
    producerOptions: () => ({ transport }),
    consumerOptions: () => ({ transport }),
    imports: () => [],
    ready: async () => undefined,
    deadLetters: (consumerId) => deadLetters.read(listenerNames(transport.options, consumerId).deadLetterQueue),
    ...(node && {
      async restart() {
        await deadLetters.close();
        await node.restart();
      },
    }),
    close() {
      closed ??= (async () => {
        await deadLetters.close();
        // A node of the session's own goes with everything in it.
        await (node ? node.close() : transport.deleteDeclared());
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

  constructor(private readonly url: string) {}
  private readonly seen = new Map<string, ConformanceDeadLetter[]>();

  async read(queue: string): Promise<ConformanceDeadLetter[]> {
    this.connection ??= connect(this.url);
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
