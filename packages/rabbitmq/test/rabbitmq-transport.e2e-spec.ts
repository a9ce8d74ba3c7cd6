import { connect } from 'amqplib';
import { waitFor } from '@mmmq/test-support';
import { TransportRejectedError } from '@mmmq/core';
import { listenerNames, RabbitMqTransport } from '../src';
import { listener, message, RABBITMQ_URL, RecordingHandler, TestResources, testTransport } from './support/rabbitmq-test-transport';

describe('RabbitMqTransport: publish, routing and subscriptions', () => {
  let resources: TestResources;

  beforeEach(() => {
    resources = new TestResources(testTransport());
  });

  afterEach(async () => {
    await resources.dispose();
  });

  it('confirms a publish and delivers it with every field mapped', async () => {
    const handler = new RecordingHandler();
    await resources.subscriber().subscribe(listener('orders', 'order.created'), handler.handle);
    const publisher = resources.publisher();
    const before = Date.now();
    const sent = message(
      'order.created',
      { total: 42, items: ['a'] },
      { headers: { tenant: 'acme', retries: 3, vip: true }, priority: 7, ttlMs: 60_000 },
    );

    const published = await publisher.publish(sent);

    expect(published).toEqual({ id: sent.id, topic: 'order.created', offset: -1, deliveryMode: 'persistent' });
    await waitFor(() => handler.received.length === 1, { message: 'the message to arrive' });
    const [delivery] = handler.received;
    expect(delivery).toEqual({
      id: sent.id,
      topic: 'order.created',
      content: { total: 42, items: ['a'] },
      headers: { tenant: 'acme', retries: 3, vip: true },
      offset: -1,
      deliveryCount: 1,
      redelivered: false,
      publishedAt: expect.any(Number),
      expiresAt: expect.any(Number),
      priority: 7,
      lastAttempt: false,
    });
    expect(delivery.publishedAt).toBeGreaterThanOrEqual(before);
    expect(delivery.expiresAt! - delivery.publishedAt!).toBe(60_000);
  });

  it('publishes AMQP properties: messageId, JSON content type, delivery mode 2 (persistent) or 1 (nonPersistent), expiration', async () => {
    const transport = resources.transport;
    const names = listenerNames(transport.options, 'raw');
    // Declared by a subscription, then read with basic.get to see the AMQP message itself.
    const subscriber = resources.subscriber();
    await subscriber.subscribe(listener('raw', 'raw.*'), new RecordingHandler().handle);
    await subscriber.stopReceiving();
    const publisher = resources.publisher();
    const persistent = message('raw.a', 1);
    const transient = message('raw.b', 2, { deliveryMode: 'nonPersistent', ttlMs: 30_000 });
    expect(await publisher.publishBatch([persistent, transient])).toEqual([
      { id: persistent.id, topic: 'raw.a', offset: -1, deliveryMode: 'persistent' },
      { id: transient.id, topic: 'raw.b', deliveryMode: 'nonPersistent' },
    ]);

    const model = await connect(RABBITMQ_URL);
    try {
      const channel = await model.createChannel();
      const first = await channel.get(names.queue, { noAck: true });
      const second = await channel.get(names.queue, { noAck: true });
      expect(first && first.properties).toMatchObject({ messageId: persistent.id, contentType: 'application/json', deliveryMode: 2 });
      expect(first && first.fields.routingKey).toBe('raw.a');
      expect(second && second.properties).toMatchObject({
        messageId: transient.id,
        deliveryMode: 1,
        expiration: expect.stringMatching(/^\d+$/),
      });
      expect(Number(second && second.properties.expiration)).toBeLessThanOrEqual(30_000);
    } finally {
      await model.close();
    }
  });

  it.each([
    ['*', 'order.*', ['order.created', 'order.paid'], ['order', 'order.created.eu', 'invoice.created']],
    ['**', 'order.**', ['order', 'order.created', 'order.created.eu'], ['invoice.created', 'orders.created']],
    ['** in the middle', 'a.**.z', ['a.z', 'a.b.z', 'a.b.c.z'], ['a.b', 'b.z']],
  ])('routes by the pattern (%s)', async (_, pattern, matching, other) => {
    const handler = new RecordingHandler();
    await resources.subscriber().subscribe(listener('patterns', pattern, { concurrency: 4 }), handler.handle);
    const publisher = resources.publisher();
    for (const topic of [...other, ...matching]) await publisher.publish(message(topic, topic));
    // The matching ones were published last, so once they all arrived, any other one would have too.
    await waitFor(() => handler.received.length >= matching.length, { message: `${matching.join(', ')} to arrive` });
    await publisher.publish(message(matching[0], 'marker'));
    await waitFor(() => handler.received.length >= matching.length + 1, { message: 'the marker to arrive' });
    expect(handler.received.map((delivery) => delivery.topic).sort()).toEqual([...matching, matching[0]].sort());
  });

  it('delivers every message to each consumerId (fan-out)', async () => {
    const billing = new RecordingHandler();
    const shipping = new RecordingHandler();
    await resources.subscriber().subscribe(listener('billing', 'order.*'), billing.handle);
    await resources.subscriber().subscribe(listener('shipping', 'order.*'), shipping.handle);
    const publisher = resources.publisher();
    const sent = [message('order.created', 1), message('order.paid', 2), message('order.created', 3)];
    await publisher.publishBatch(sent);

    await waitFor(() => billing.received.length === 3 && shipping.received.length === 3, { message: 'both consumerIds to get all 3' });
    expect(billing.ids()).toEqual(sent.map((sentMessage) => sentMessage.id));
    expect(shipping.ids()).toEqual(sent.map((sentMessage) => sentMessage.id));
  });

  it('shares a consumerId between its subscribers (competing consumers), each message handled once', async () => {
    // A slow handler keeps one subscriber busy, so the other must take its share.
    const slow = (): Promise<{ acknowledgement: 'ACK' }> =>
      new Promise((resolve) => setTimeout(() => resolve({ acknowledgement: 'ACK' }), 20));
    const first = new RecordingHandler(slow);
    const second = new RecordingHandler(slow);
    await resources.subscriber().subscribe(listener('workers', 'job'), first.handle);
    await resources.subscriber().subscribe(listener('workers', 'job'), second.handle);
    const sent = Array.from({ length: 40 }, (_, index) => message('job', index));
    await resources.publisher().publishBatch(sent);

    await waitFor(() => first.received.length + second.received.length === 40, { message: '40 jobs handled' });
    expect(first.received.length).toBeGreaterThan(0);
    expect(second.received.length).toBeGreaterThan(0);
    expect([...first.ids(), ...second.ids()].sort()).toEqual(sent.map((sentMessage) => sentMessage.id).sort());
  });

  it('keeps the order of one queue with concurrency 1', async () => {
    const handler = new RecordingHandler();
    await resources.subscriber().subscribe(listener('ordered', 'seq'), handler.handle);
    const sent = Array.from({ length: 50 }, (_, index) => message('seq', index));
    await resources.publisher().publishBatch(sent);
    await waitFor(() => handler.received.length === 50, { message: '50 messages' });
    expect(handler.received.map((delivery) => delivery.content)).toEqual(sent.map((_, index) => index));
  });

  it('hands a message the handler could not take (it rejects) to a subscriber again', async () => {
    let refusals = 1;
    const handler = new RecordingHandler();
    const refusing = async (delivery: Parameters<RecordingHandler['handle']>[0]): ReturnType<RecordingHandler['handle']> => {
      if (refusals-- > 0) throw new Error('queue full');
      return handler.handle(delivery);
    };
    await resources.subscriber().subscribe(listener('refusing', 'busy'), refusing);
    const sent = message('busy', 'x');
    await resources.publisher().publish(sent);
    await waitFor(() => handler.received.length === 1, { message: 'the refused message to come back' });
    // basic.nack with requeue: RabbitMQ's quorum queue counts the return (x-delivery-count), so this is delivery 2.
    expect(handler.received[0]).toMatchObject({ id: sent.id, deliveryCount: 2, redelivered: true });
  });

  it("refuses publishes once a queue holds more than backlogLimit.maxBacklog messages (overflow 'reject' → x-max-length, reject-publish)", async () => {
    const subscriber = resources.subscriber();
    await subscriber.subscribe(
      listener('bounded', 'full', { backlogLimit: { maxBacklog: 2, overflow: 'reject' } }),
      new RecordingHandler().handle,
    );
    await subscriber.stopReceiving();
    const publisher = resources.publisher();
    const outcomes: string[] = [];
    for (let n = 1; n <= 5; n++) {
      outcomes.push(
        await publisher.publish(message('full', n)).then(
          () => 'confirmed',
          (error: Error) => error.name,
        ),
      );
    }
    // A quorum queue refuses a publish once it holds more than x-max-length: it takes one message past the limit
    // (docs/scaling.md, "Differences in guarantees").
    expect(outcomes).toEqual(['confirmed', 'confirmed', 'confirmed', 'PublishNotConfirmedError', 'PublishNotConfirmedError']);
  });

  it('confirms a message no queue is bound for by default, and refuses it with TransportRejectedError under rejectUnroutable', async () => {
    const lenient = resources.publisher();
    await expect(lenient.publish(message('nobody.listens', 1))).resolves.toMatchObject({ topic: 'nobody.listens' });
    const strictTransport = new RabbitMqTransport({
      url: RABBITMQ_URL,
      exchange: resources.transport.options.exchange,
      rejectUnroutable: true,
    });
    const strict = resources.keep(strictTransport.createPublisher());
    await expect(strict.publish(message('nobody.listens', 2))).rejects.toThrow(TransportRejectedError);
  });

  it("fails subscribe with RabbitMQ's reason when the queue exists with other arguments (a changed backlogLimit)", async () => {
    const first = resources.subscriber();
    await first.subscribe(listener('fixed', 'args'), new RecordingHandler().handle);
    await first.close();
    const second = resources.subscriber();
    await expect(
      second.subscribe(listener('fixed', 'args', { backlogLimit: { maxBacklog: 5, overflow: 'reject' } }), new RecordingHandler().handle),
    ).rejects.toThrow(/PRECONDITION_FAILED/);
  });
});
