import { DEFAULT_BACKOFF, Host, TopicPattern } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { DeadLetterWriter } from '../../src/dispatch/dead-letter-writer';
import { DEFAULT_DELIVERY_OPTIONS } from '../../src/dispatch/delivery.options';
import { DEFAULT_ACK_TIMEOUT_MS, DEFAULT_MAX_DELIVERIES, DispatcherDefinition } from '../../src/dispatch/dispatcher-definition';
import { PushSender } from '../../src/dispatch/push-sender';
import { DELIVERY_MARK_RESERVE, Subscription } from '../../src/dispatch/subscription';
import { BrokerEvents } from '../../src/events/broker-events';
import { CheckpointFile } from '../../src/storage/checkpoint-file';
import { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { useTempDir } from '../storage/temp-dir';
import { TestConsumer } from '../support/test-consumer';
import { onCommitted, openContainer, publish, topicQueue } from '../support/topic-fixture';

// A push abandoned at stop is logged; expected here.
Logger.overrideLogger(false);

/** The delivery mark: what a restart counts as maybe delivered (docs/delivery.md, "The model"). */
describe('the delivery mark a subscription writes', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer;
  let consumer: TestConsumer;
  let sender: PushSender;
  let queue: TopicQueue;
  let checkpoint: CheckpointFile;
  let subscription: Subscription | undefined;

  const subscribe = async (batchSize: number) => {
    const definition: DispatcherDefinition = {
      consumerId: 'billing',
      hosts: [Host.parse(consumer.url)],
      patterns: [new TopicPattern('order.*')],
      startFrom: 'earliest',
      batchSize,
      maxInFlight: 1,
      ordered: true,
      maxDeliveries: DEFAULT_MAX_DELIVERIES,
      ackTimeoutMs: DEFAULT_ACK_TIMEOUT_MS,
      exclusive: false,
    };
    sender = new PushSender(5000);
    checkpoint = await queue.checkpoints.open('billing', 0, queue.tailOffset);
    subscription = new Subscription(queue, definition, checkpoint, {
      sender,
      deadLetters: new DeadLetterWriter(container),
      options: { ...DEFAULT_DELIVERY_OPTIONS, backoff: { ...DEFAULT_BACKOFF, initialMs: 20, maxMs: 100 } },
      events: new BrokerEvents(),
    });
    onCommitted(container, queue, () => subscription?.signal());
    subscription.signal();
    return subscription;
  };

  beforeEach(async () => {
    consumer = new TestConsumer();
    await consumer.start();
    container = openContainer(dir());
    queue = await topicQueue(container, 'order.created');
  });
  afterEach(async () => {
    await subscription?.stop();
    subscription = undefined;
    sender.close();
    await consumer.stop();
    await container.onApplicationShutdown();
  });

  it('covers, once stopped, only the messages handed out: none read ahead and never sent', async () => {
    await publish(queue, ...Array.from({ length: 200 }, (_, n) => ({ n })));
    consumer.reply = () => 'hang';
    const running = await subscribe(10);
    await consumer.waitFor(() => consumer.received.length === 10, { message: 'the first push of 10' });
    await running.stop();
    expect(checkpoint.snapshot.deliveredMark).toBe(10);
  });

  it('keeps a message given back unsent (503) as never delivered: after a restart it comes with deliveryCount 1', async () => {
    await publish(queue, { n: 0 }, { n: 1 });
    consumer.reply = () => ({ status: 503 });
    const first = await subscribe(10);
    await consumer.waitFor(() => consumer.received.length >= 2, { message: 'the push refused with 503' });
    await first.stop();
    sender.close();
    await container.onApplicationShutdown();
    container = openContainer(dir());
    queue = await topicQueue(container, 'order.created');
    consumer.received.length = 0;
    consumer.reply = () => 'ACK';
    const second = await subscribe(10);
    await consumer.waitFor(() => second.position === 2, { message: 'both messages to be acknowledged after the restart' });
    expect(consumer.received.map(({ body }) => [body.deliveryCount, body.redelivered])).toEqual([
      [1, false],
      [1, false],
    ]);
  });

  it('is written ahead while one-message pushes go through a backlog, not once per message, and trimmed at the stop', async () => {
    const count = 4 * DELIVERY_MARK_RESERVE;
    await publish(queue, ...Array.from({ length: count }, (_, n) => ({ n })));
    const running = await subscribe(1);
    const writes = jest.spyOn(checkpoint, 'write');
    await consumer.waitFor(() => running.position === count, { message: `the ${count} messages to be acknowledged` });
    await running.stop();
    expect(checkpoint.snapshot.deliveredMark).toBe(count);
    // The ACKs share writes too: far fewer writes than messages.
    expect(writes.mock.calls.length).toBeLessThan(count / 2);
  });
});
