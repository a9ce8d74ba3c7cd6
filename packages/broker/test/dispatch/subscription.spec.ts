import { DEFAULT_BACKOFF, Host, TopicPattern } from '@mmmq/core';
import { DeadLetterHeaders, DeadLetterWriter } from '../../src/dispatch/dead-letter-writer';
import { DEFAULT_DELIVERY_OPTIONS } from '../../src/dispatch/delivery.options';
import { DEFAULT_ACK_TIMEOUT_MS, DEFAULT_MAX_DELIVERIES, DispatcherDefinition } from '../../src/dispatch/dispatcher-definition';
import { PushSender } from '../../src/dispatch/push-sender';
import { BrokerEvents } from '../../src/events/broker-events';
import { Subscription } from '../../src/dispatch/subscription';
import { decodeEnvelope } from '../../src/format/message-envelope';
import { CheckpointFile } from '../../src/storage/checkpoint-file';
import { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { flipByte, segmentPaths } from '../storage/segment-files';
import { useTempDir } from '../storage/temp-dir';
import { TestConsumer } from '../support/test-consumer';
import { onCommitted, openContainer, publish, topicQueue } from '../support/topic-fixture';
import { Logger } from '@nestjs/common';

// These tests provoke failures on purpose; what the broker logs about them is expected, so it is not printed.
Logger.overrideLogger(false);

describe('Subscription', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer;
  let consumer: TestConsumer;
  let sender: PushSender;
  let queue: TopicQueue;
  const subscriptions: Subscription[] = [];

  const subscribe = async (options: { timeoutMs?: number; deliveredMark?: number; batchSize?: number; maxInFlight?: number } = {}) => {
    const definition: DispatcherDefinition = {
      consumerId: 'billing',
      hosts: [Host.parse(consumer.url)],
      patterns: [new TopicPattern('order.*')],
      startFrom: 'earliest',
      batchSize: options.batchSize ?? 1,
      maxInFlight: options.maxInFlight ?? 1,
      ordered: true,
      maxDeliveries: DEFAULT_MAX_DELIVERIES,
      ackTimeoutMs: DEFAULT_ACK_TIMEOUT_MS,
      exclusive: false,
    };
    sender = new PushSender(options.timeoutMs ?? 5000);
    checkpoint = await queue.checkpoints.open('billing', 0, queue.tailOffset);
    // A broker that stopped after handing out offsets below the mark: they may have reached the consumer.
    if (options.deliveredMark) await checkpoint.write({ cursor: 0, settled: [], counts: [], deliveredMark: options.deliveredMark });
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
  };

  let checkpoint: CheckpointFile;
  /** The checkpoint as far as it is durable: it moves only once the journal record holding the move is fsync'd. */
  const checkpointOnDisk = () => checkpoint.offset;

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

  it('delivers the backlog and new messages in order with the documented push body, and checkpoints the ACKs', async () => {
    await publish(queue, { n: 0 }, { n: 1 });
    const subscription = await subscribe();
    await publish(queue, { n: 2 });
    await consumer.waitFor(() => consumer.received.length === 3);
    expect(consumer.contents()).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    const first = consumer.received[0];
    expect(first.consumerId).toBe('billing');
    expect(first.body).toEqual({
      id: 'order.created-0',
      topic: 'order.created',
      content: { n: 0 },
      headers: { source: 'test' },
      offset: 0,
      deliveryCount: 1,
      redelivered: false,
      publishedAt: expect.any(Number),
      lease: 'order.created:0:1',
      lastAttempt: false,
    });
    await consumer.waitFor(() => subscription.position === 3);
    await consumer.waitFor(() => checkpointOnDisk() === 3);
  });

  it('dead-letters a message NACKed 4 times with its headers, then delivers the next one', async () => {
    consumer.reply = (delivery) => ((delivery.body.content as { n: number }).n === 0 ? 'NACK' : 'ACK');
    await publish(queue, { n: 0 }, { n: 1 });
    const subscription = await subscribe();
    await consumer.waitFor(() => subscription.position === 2);
    expect(consumer.received.map((delivery) => delivery.body.deliveryCount)).toEqual([1, 2, 3, 4, 1]);
    expect(consumer.received.map((delivery) => delivery.body.redelivered)).toEqual([false, true, true, true, false]);
    const dlq = container.get('__dlq.billing');
    const letter = decodeEnvelope((await dlq!.peek(0))!);
    expect(letter.id).toBe('order.created-0');
    expect(letter.topic).toBe('order.created');
    expect(JSON.parse(String(letter.content))).toEqual({ n: 0 });
    expect(letter.headers).toMatchObject({
      source: 'test',
      [DeadLetterHeaders.ORIGINAL_TOPIC]: 'order.created',
      [DeadLetterHeaders.ORIGINAL_OFFSET]: 0,
      [DeadLetterHeaders.ATTEMPTS]: 4,
      [DeadLetterHeaders.REASON]: 'NACK',
      [DeadLetterHeaders.CONSUMER_ID]: 'billing',
    });
    expect(subscription.stats.deadLettered).toBe(1);
  });

  it('dead-letters at once a NACK that says retrying cannot help', async () => {
    consumer.reply = (delivery) => ((delivery.body.content as { n: number }).n === 0 ? 'REJECT' : 'ACK');
    await publish(queue, { n: 0 }, { n: 1 });
    const subscription = await subscribe();
    await consumer.waitFor(() => subscription.position === 2);
    expect(consumer.received.map((delivery) => delivery.body.offset)).toEqual([0, 1]);
    const letter = decodeEnvelope((await container.get('__dlq.billing')!.peek(0))!);
    expect(letter.headers).toMatchObject({
      [DeadLetterHeaders.REASON]: 'REJECTED',
      [DeadLetterHeaders.ATTEMPTS]: 1,
      [DeadLetterHeaders.LAST_ERROR]: 'poison message',
    });
  });

  it('pushes batches to a consumer that asked for them, in order, one checkpoint per batch', async () => {
    await publish(queue, ...Array.from({ length: 25 }, (_, n) => ({ n })));
    const subscription = await subscribe({ batchSize: 10 });
    await consumer.waitFor(() => subscription.position === 25);
    expect(consumer.contents()).toEqual(Array.from({ length: 25 }, (_, n) => ({ n })));
    expect(consumer.requests).toBe(3);
  });

  it('keeps a batched push under 1 MiB of payload, but always sends at least one message', async () => {
    const big = 'x'.repeat(600 * 1024);
    await publish(queue, { big, n: 0 }, { big, n: 1 }, { n: 2 }, { n: 3 });
    const subscription = await subscribe({ batchSize: 10 });
    await consumer.waitFor(() => subscription.position === 4);
    expect(consumer.contents().map((content) => (content as { n: number }).n)).toEqual([0, 1, 2, 3]);
    expect(consumer.requests).toBe(2);
  });

  it('in a batch, resends only the NACKed message and dead-letters it after 4 attempts', async () => {
    consumer.reply = (delivery) => ((delivery.body.content as { n: number }).n === 1 ? 'NACK' : 'ACK');
    await publish(queue, { n: 0 }, { n: 1 }, { n: 2 });
    const subscription = await subscribe({ batchSize: 10 });
    await consumer.waitFor(() => subscription.position === 3);
    expect(consumer.contents()).toEqual([0, 1, 2, 1, 1, 1].map((n) => ({ n })));
    expect(consumer.received.slice(3).map((delivery) => delivery.body.deliveryCount)).toEqual([2, 3, 4]);
    expect(subscription.stats).toMatchObject({ delivered: 2, deadLettered: 1 });
  });

  it('retries HTTP errors with backoff and the same id, marking them redelivered', async () => {
    let calls = 0;
    consumer.reply = () => (++calls <= 3 ? { status: 500 } : 'ACK');
    await publish(queue, { n: 0 });
    const subscription = await subscribe();
    await consumer.waitFor(() => subscription.position === 1);
    expect(consumer.received.map((delivery) => [delivery.body.id, delivery.body.deliveryCount, delivery.body.redelivered])).toEqual([
      ['order.created-0', 1, false],
      ['order.created-0', 2, true],
      ['order.created-0', 3, true],
      ['order.created-0', 4, true],
    ]);
    expect(subscription.stats.failures).toBe(3);
    expect(subscription.stats.lastError).toMatch(/HTTP 500/);
  });

  it('times out a hung consumer and delivers once it answers again', async () => {
    let calls = 0;
    consumer.reply = () => (++calls === 1 ? 'hang' : 'ACK');
    await publish(queue, { n: 0 }, { n: 1 });
    const subscription = await subscribe({ timeoutMs: 300 });
    await consumer.waitFor(() => subscription.position === 2);
    expect(subscription.stats.lastError).toMatch(/no reply within 300 ms/);
    expect(consumer.contents()).toEqual([{ n: 0 }, { n: 0 }, { n: 1 }]);
  });

  it('skips a corrupt entry with a counter instead of retrying it forever', async () => {
    await publish(queue, { n: 0 }, { n: 1 }, { n: 2 });
    const firstFrame = 8 + (await queue.peek(0))!.length;
    await container.onApplicationShutdown();
    flipByte(segmentPaths(queue.dir).data, firstFrame + 8 + 20);
    container = openContainer(dir());
    queue = await topicQueue(container, 'order.created');
    const subscription = await subscribe();
    await consumer.waitFor(() => subscription.position === 3);
    expect(consumer.contents()).toEqual([{ n: 0 }, { n: 2 }]);
    expect(subscription.stats.corruptSkipped).toBe(1);
  });

  it('marks the messages below the delivery mark as possibly redelivered after a restart, and counts them', async () => {
    await publish(queue, { n: 0 }, { n: 1 }, { n: 2 });
    const subscription = await subscribe({ deliveredMark: 2 });
    await consumer.waitFor(() => subscription.position === 3);
    expect(consumer.received.map((delivery) => delivery.body.redelivered)).toEqual([true, true, false]);
    expect(consumer.received.map((delivery) => delivery.body.deliveryCount)).toEqual([2, 2, 1]);
  });

  it('journals the ACKs in the background, many to one write, and has the position durable once stopped', async () => {
    await publish(queue, ...Array.from({ length: 40 }, (_, n) => ({ n })));
    const subscription = await subscribe();
    const writes = jest.spyOn(checkpoint, 'write');
    await consumer.waitFor(() => subscription.position === 40);
    await subscription.stop();
    expect(checkpointOnDisk()).toBe(40);
    expect(writes.mock.calls.length).toBeLessThan(40);
  });

  it('stop abandons an in-flight push without moving the checkpoint, and never sends again', async () => {
    consumer.reply = () => 'hang';
    await publish(queue, { n: 0 });
    const subscription = await subscribe();
    await consumer.waitFor(() => consumer.received.length === 1);
    await subscription.stop();
    await publish(queue, { n: 1 });
    await consumer.expectQuiet({ forMs: 100, message: 'no push after stop' });
    expect(consumer.received).toHaveLength(1);
    expect((await queue.checkpoints.open('billing', 0, queue.tailOffset)).offset).toBe(0);
  });

  it('stop with a grace period lets an in-flight push finish and checkpoints it', async () => {
    consumer.reply = () => ({ ackAfterMs: 300 });
    await publish(queue, { n: 0 }, { n: 1 });
    const subscription = await subscribe();
    await consumer.waitFor(() => consumer.received.length === 1);
    await subscription.stop(10_000);
    expect(subscription.position).toBe(1);
    expect((await queue.checkpoints.open('billing', 0, queue.tailOffset)).offset).toBe(1);
    expect(consumer.received).toHaveLength(1);
  });

  describe('with several pushes in flight (maxInFlight)', () => {
    const offsets = (deliveries: typeof consumer.received) => deliveries.map((delivery) => delivery.body.offset);

    it('keeps up to maxInFlight numbered pushes on their way, in offset order within one session', async () => {
      consumer.reply = () => ({ ackAfterMs: 30 });
      await publish(queue, ...Array.from({ length: 12 }, (_, n) => ({ n })));
      const subscription = await subscribe({ maxInFlight: 4 });
      await consumer.waitFor(() => subscription.position === 12);
      expect(consumer.maxOpen).toBe(4);
      const bySequence = [...consumer.received].sort((a, b) => a.sequence! - b.sequence!);
      expect(new Set(bySequence.map((delivery) => delivery.session)).size).toBe(1);
      expect(bySequence.map((delivery) => delivery.sequence)).toEqual([...Array(12).keys()]);
      expect(offsets(bySequence)).toEqual([...Array(12).keys()]);
    });

    it('sends no session headers to a consumer that takes one push at a time', async () => {
      await publish(queue, { n: 0 }, { n: 1 });
      const subscription = await subscribe();
      await consumer.waitFor(() => subscription.position === 2);
      expect(consumer.received.map((delivery) => delivery.session)).toEqual([undefined, undefined]);
      expect(consumer.maxOpen).toBe(1);
    });

    it('after a failed push resends it and every push behind it, in order, in a new session', async () => {
      let failed = false;
      consumer.reply = (delivery) => {
        if (delivery.body.offset !== 0 || failed) return { ackAfterMs: 20 };
        failed = true;
        return { status: 500 };
      };
      await publish(queue, ...Array.from({ length: 6 }, (_, n) => ({ n })));
      const subscription = await subscribe({ maxInFlight: 3 });
      await consumer.waitFor(() => subscription.position === 6);
      const sessions = [...new Set(consumer.received.map((delivery) => delivery.session))];
      expect(sessions).toHaveLength(2);
      const second = consumer.received.filter((delivery) => delivery.session === sessions[1]).sort((a, b) => a.sequence! - b.sequence!);
      expect(second.map((delivery) => delivery.sequence)).toEqual([...Array(6).keys()]);
      expect(offsets(second)).toEqual([...Array(6).keys()]);
      expect(second[0].body).toMatchObject({ deliveryCount: 2, redelivered: true });
      expect(subscription.stats).toMatchObject({ delivered: 6, failures: 1 });
    });

    it('sends a NACKed message again in the next push of the session, and only moves the checkpoint past it once ACKed', async () => {
      let nacked = false;
      consumer.reply = (delivery) => {
        if (delivery.body.offset === 1 && !nacked) {
          nacked = true;
          return 'NACK';
        }
        return { ackAfterMs: 10 };
      };
      await publish(queue, ...Array.from({ length: 5 }, (_, n) => ({ n })));
      const subscription = await subscribe({ maxInFlight: 3 });
      await consumer.waitFor(() => subscription.position === 5);
      const resent = consumer.received.filter((delivery) => delivery.body.offset === 1);
      expect(resent.map((delivery) => delivery.body.deliveryCount)).toEqual([1, 2]);
      expect(new Set(consumer.received.map((delivery) => delivery.session)).size).toBe(1);
      await subscription.stop();
      expect(checkpointOnDisk()).toBe(5);
    });
  });
});
