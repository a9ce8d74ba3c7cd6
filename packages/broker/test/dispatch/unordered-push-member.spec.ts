import { DEFAULT_BACKOFF, Host, TopicPattern } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { DeadLetterWriter } from '../../src/dispatch/dead-letter-writer';
import { DEFAULT_DELIVERY_OPTIONS } from '../../src/dispatch/delivery.options';
import { DEFAULT_ACK_TIMEOUT_MS, DEFAULT_MAX_DELIVERIES, DispatcherDefinition } from '../../src/dispatch/dispatcher-definition';
import { ORDERING_KEY_HEADER } from '../../src/dispatch/ledger/slot';
import { PushSender } from '../../src/dispatch/push-sender';
import { Subscription } from '../../src/dispatch/subscription';
import { BrokerEvents } from '../../src/events/broker-events';
import { encodeEnvelope } from '../../src/format/message-envelope';
import { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { useTempDir } from '../storage/temp-dir';
import { TestConsumer } from '../support/test-consumer';
import { onCommitted, openContainer, publish, topicQueue } from '../support/topic-fixture';

// Failures are provoked on purpose; what the broker logs about them is expected.
Logger.overrideLogger(false);

describe('a push member of an unordered dispatcher (ordered: false)', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer;
  let consumer: TestConsumer;
  let sender: PushSender;
  let queue: TopicQueue;
  const subscriptions: Subscription[] = [];

  const subscribe = (maxInFlight: number, batchSize = 1) => {
    const definition: DispatcherDefinition = {
      consumerId: 'billing',
      hosts: [Host.parse(consumer.url)],
      patterns: [new TopicPattern('order.*')],
      startFrom: 'earliest',
      batchSize,
      maxInFlight,
      ordered: false,
      maxDeliveries: DEFAULT_MAX_DELIVERIES,
      ackTimeoutMs: DEFAULT_ACK_TIMEOUT_MS,
      exclusive: false,
    };
    sender = new PushSender(5000);
    return queue.checkpoints.open('billing', 0, queue.tailOffset).then((checkpoint) => {
      const subscription = new Subscription(queue, definition, checkpoint, {
        sender,
        deadLetters: new DeadLetterWriter(container),
        options: { ...DEFAULT_DELIVERY_OPTIONS, backoff: { ...DEFAULT_BACKOFF, initialMs: 20, maxMs: 100 } },
        events: new BrokerEvents(),
      });
      subscriptions.push(subscription);
      onCommitted(container, queue, () => subscription.signal());
      subscription.signal();
      return subscription;
    });
  };

  /** Publishes one message per key, in order, each with `mmmq-ordering-key` set to it. */
  const publishKeyed = async (keys: string[]) => {
    for (const [n, key] of keys.entries()) {
      await queue.offer(
        encodeEnvelope({
          id: `keyed-${n}`,
          topic: queue.topic.name,
          publishedAt: Date.now(),
          headers: { [ORDERING_KEY_HEADER]: key },
          content: Buffer.from(JSON.stringify({ n, key })),
        }),
      );
    }
  };

  const offsets = () => consumer.received.map((delivery) => delivery.body.offset);
  const numbers = (count: number) => Array.from({ length: count }, (_, n) => ({ n }));

  beforeEach(async () => {
    consumer = new TestConsumer();
    await consumer.start();
    container = openContainer(dir());
    queue = await topicQueue(container, 'order.created');
  });
  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((subscription) => subscription.stop()));
    sender.close();
    await consumer.stop();
    await container.onApplicationShutdown();
  });

  it('keeps maxInFlight pushes on their way, unnumbered, and delivers and settles each message once', async () => {
    consumer.reply = () => ({ ackAfterMs: 30 });
    await publish(queue, ...numbers(20));
    const subscription = await subscribe(4);
    await consumer.waitFor(() => subscription.position === 20, { message: () => `position ${subscription.position} of 20` });
    expect(consumer.maxOpen).toBe(4);
    expect([...offsets()].sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(consumer.received.every((delivery) => delivery.session === undefined && delivery.sequence === undefined)).toBe(true);
    expect(subscription.stats).toMatchObject({ delivered: 20, redelivered: 0, failures: 0 });
  });

  it('does not hold the others back behind a slow push: its place frees as soon as it is answered', async () => {
    consumer.reply = (delivery) => (delivery.body.offset === 0 ? { ackAfterMs: 1500 } : { ackAfterMs: 5 });
    await publish(queue, ...numbers(30));
    const subscription = await subscribe(2);
    // Offset 0 holds one place for 1.5 s; the other place carries the 29 others meanwhile.
    await consumer.waitFor(() => subscription.stats.delivered === 29, {
      deadlineMs: 1200,
      message: () => `${subscription.stats.delivered} settled while offset 0 was being handled`,
    });
    expect(subscription.position).toBe(0);
    await consumer.waitFor(() => subscription.position === 30, { message: () => `position ${subscription.position} of 30` });
  });

  it('pushes new messages at once while a slow push is on its way, without waiting for its answer', async () => {
    consumer.reply = (delivery) => (delivery.body.offset === 0 ? { ackAfterMs: 2000 } : 'ACK');
    await publish(queue, { n: 0 });
    const subscription = await subscribe(4);
    await consumer.waitFor(() => consumer.received.length === 1, { message: 'the slow push' });
    await publish(queue, { n: 1 }, { n: 2 });
    await consumer.waitFor(() => subscription.stats.delivered === 2, {
      deadlineMs: 1500,
      message: () => `${subscription.stats.delivered} settled while offset 0 was being handled`,
    });
    expect(offsets()).toEqual([0, 1, 2]);
  });

  it('gives back only the failed push: the pushes beside it are settled, not sent again', async () => {
    let failed = false;
    consumer.reply = (delivery) => {
      if (delivery.body.offset !== 2 || failed) return { ackAfterMs: 20 };
      failed = true;
      return { status: 500 };
    };
    await publish(queue, ...numbers(8));
    const subscription = await subscribe(3);
    await consumer.waitFor(() => subscription.position === 8, { message: () => `position ${subscription.position} of 8` });
    const sentTwice = offsets().filter((offset, i, all) => all.indexOf(offset) !== i);
    expect(sentTwice).toEqual([2]);
    expect(consumer.received.filter((delivery) => delivery.body.offset === 2).map((delivery) => delivery.body.deliveryCount)).toEqual([
      1, 2,
    ]);
    expect(subscription.stats).toMatchObject({ delivered: 8, failures: 1 });
  });

  it('splits pushes refused as too large (413) without counting them, while the other pushes go on', async () => {
    // A batch of more than about 4 messages is refused: the member halves its pushes until they pass.
    consumer.reply = (delivery) => (Number(delivery.headers['content-length']) > 1200 ? { status: 413 } : 'ACK');
    await publish(queue, ...numbers(40));
    const subscription = await subscribe(4, 20);
    await consumer.waitFor(() => subscription.position === 40, { message: () => `position ${subscription.position} of 40` });
    expect(consumer.received.every((delivery) => delivery.body.deliveryCount === 1)).toBe(true);
    expect(subscription.stats).toMatchObject({ delivered: 40, redelivered: 0, deadLettered: 0, failures: 0 });
    expect(subscription.members[0].batchLimit).toBeLessThan(20);
  });

  it('keeps per-key order with pushes in flight: a key has one message out at a time, in offset order', async () => {
    const keys = Array.from({ length: 24 }, (_, n) => ['a', 'b', 'c'][n % 3]);
    /** Messages of each key being handled now. */
    const handling = new Map<string, number>();
    let overlapped = false;
    consumer.reply = (delivery) => {
      const { key } = delivery.body.content as { key: string };
      const now = (handling.get(key) ?? 0) + 1;
      if (now > 1) overlapped = true;
      handling.set(key, now);
      setTimeout(() => handling.set(key, handling.get(key)! - 1), 15);
      return { ackAfterMs: 20 };
    };
    await publishKeyed(keys);
    const subscription = await subscribe(6);
    await consumer.waitFor(() => subscription.position === keys.length, { message: () => `position ${subscription.position}` });
    expect(overlapped).toBe(false);
    // Three keys, so three pushes at once at most, though six may be in flight.
    expect(consumer.maxOpen).toBeGreaterThan(1);
    expect(consumer.maxOpen).toBeLessThanOrEqual(3);
    for (const key of ['a', 'b', 'c']) {
      const ofKey = consumer.received.filter((delivery) => (delivery.body.content as { key: string }).key === key);
      const order = ofKey.map((delivery) => delivery.body.offset);
      expect(order).toEqual([...order].sort((x, y) => x - y));
      expect(order).toHaveLength(8);
    }
  });

  it('keeps per-key order when a keyed message is NACKed: the key waits for its redelivery', async () => {
    let nacked = false;
    consumer.reply = (delivery) => {
      if (delivery.body.offset === 0 && !nacked) {
        nacked = true;
        return 'NACK';
      }
      return { ackAfterMs: 10 };
    };
    await publishKeyed(['a', 'a', 'b', 'a', 'b']);
    const subscription = await subscribe(4);
    await consumer.waitFor(() => subscription.position === 5, { message: () => `position ${subscription.position} of 5` });
    const ofA = consumer.received.filter((delivery) => (delivery.body.content as { key: string }).key === 'a');
    expect(ofA.map((delivery) => delivery.body.offset)).toEqual([0, 0, 1, 3]);
  });
});
