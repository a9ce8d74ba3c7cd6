import { Test } from '@nestjs/testing';
import { Acknowledgement, ConsumerAcknowledgement } from '../../src/acknowledgement';
import { InvalidTopicError } from '../../src/errors/invalid-topic-error';
import { MmmqValidationError } from '../../src/errors/mmmq-validation-error';
import { MmmqTransport, TransportListener } from '../../src/transport/transport';
import { isTransactionalSubscriber } from '../../src/transport/transactional-subscriber';
import type { TransportMessage } from '../../src/transport/transport-message';
import { InMemoryBroker } from '../../src/testing/in-memory-broker';
import { InMemoryTransport } from '../../src/testing/in-memory-transport';
import { MmmqTestingModule } from '../../src/testing/mmmq-testing.module';

const ack: ConsumerAcknowledgement = { acknowledgement: Acknowledgement.ACK };
const listener: TransportListener = { consumerId: 'billing.orders', pattern: 'order.*', concurrency: 1, ackMode: 'auto' };

function message(overrides: Partial<TransportMessage> = {}): TransportMessage {
  return { id: 'm-1', topic: 'order.created', headers: { vip: true }, content: '{"n":1}', deliveryMode: undefined, ...overrides };
}

describe('InMemoryTransport', () => {
  it('is an MmmqTransport named in-memory, over a broker of its own unless given one', () => {
    const transport = new InMemoryTransport();
    expect(transport).toBeInstanceOf(MmmqTransport);
    expect(transport.name).toBe('in-memory');
    expect(transport.broker).toBeInstanceOf(InMemoryBroker);
    const broker = new InMemoryBroker();
    expect(new InMemoryTransport(broker).broker).toBe(broker);
  });

  it('publishes to its broker, batches as one commit, with the id, headers and properties given', async () => {
    const transport = new InMemoryTransport();
    const publisher = transport.createPublisher();
    await expect(publisher.publish(message({ ttlMs: 60_000, priority: 7 }))).resolves.toEqual({
      id: 'm-1',
      topic: 'order.created',
      offset: 0,
      deliveryMode: 'persistent',
    });
    const batch = await publisher.publishBatch([message({ id: 'm-2' }), message({ id: 'm-3', topic: 'order.cancelled' })]);
    expect(batch.map(({ topic, offset }) => `${topic}@${offset}`)).toEqual(['order.created@1', 'order.cancelled@0']);
    expect(transport.broker.published('order.created')[0]).toMatchObject({
      id: 'm-1',
      content: { n: 1 },
      headers: { vip: true },
      priority: 7,
    });
    await publisher.close();
  });

  it('refuses an invalid message with the MmmqValidationError naming the problem, and stores none of its batch', async () => {
    const publisher = new InMemoryTransport().createPublisher();
    await expect(publisher.publish(message({ topic: '__reserved' }))).rejects.toBeInstanceOf(InvalidTopicError);
    const transport = new InMemoryTransport();
    const batch = transport.createPublisher().publishBatch([message(), message({ id: 'm-2', topic: '__reserved' })]);
    await expect(batch).rejects.toBeInstanceOf(MmmqValidationError);
    expect(transport.broker.published()).toEqual([]);
  });

  it('hands a subscribed listener its messages, and publishes a transaction’s outputs as one batch', async () => {
    const transport = new InMemoryTransport();
    const subscriber = transport.createSubscriber();
    const seen: string[] = [];
    await subscriber.subscribe(listener, async (delivery) => {
      seen.push(`${delivery.topic}:${delivery.id}:${delivery.deliveryCount}`);
      return ack;
    });
    await transport.createPublisher().publish(message());
    await transport.broker.drain();
    expect(seen).toEqual(['order.created:m-1:1']);

    expect(isTransactionalSubscriber(subscriber)).toBe(true);
    const outputs = [
      { topic: 'invoice.paid', content: { n: 1 } },
      { topic: { name: 'invoice.paid' }, content: { n: 2 } },
    ];
    const published = await subscriber.commitTransaction(
      listener,
      { ...transport.broker.published()[0], deliveryCount: 1, redelivered: false },
      outputs,
    );
    expect(published.map(({ offset }) => offset)).toEqual([0, 1]);
    expect(transport.broker.published('invoice.paid').map(({ content }) => content)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('counts a delivery a receiving consumer refused as a NACKed attempt (the broker cannot hold it back)', async () => {
    const transport = new InMemoryTransport(new InMemoryBroker(1));
    const subscriber = transport.createSubscriber();
    await subscriber.subscribe(listener, async () => {
      throw new Error('queue full');
    });
    transport.broker.publish({ topic: 'order.created', content: 1 });
    await transport.broker.drain();
    expect(transport.broker.deadLetters()).toEqual([expect.objectContaining({ reason: 'NACK', attempts: 2, lastError: 'queue full' })]);
    await subscriber.close();
  });

  it('keeps what is published after stopReceiving() for the next subscriber of the consumer id, uncounted', async () => {
    const transport = new InMemoryTransport();
    const first = transport.createSubscriber();
    let firstCalls = 0;
    await first.subscribe(listener, async () => {
      firstCalls++;
      return { acknowledgement: 'ACK' };
    });
    await first.stopReceiving();
    transport.broker.publish({ topic: 'order.created', content: 1 });
    await transport.broker.drain();
    expect(transport.broker.deadLetters()).toEqual([]);

    const next = transport.createSubscriber();
    const received: Array<{ content: unknown; deliveryCount: number }> = [];
    await next.subscribe(listener, async ({ content, deliveryCount }) => {
      received.push({ content, deliveryCount });
      return { acknowledgement: 'ACK' };
    });
    await transport.broker.drain();
    expect(firstCalls).toBe(0);
    expect(received).toEqual([{ content: 1, deliveryCount: 1 }]);
    await first.close();
    await next.close();
  });

  it('shares a consumer id among its subscribers, each message handled by one of them', async () => {
    const transport = new InMemoryTransport();
    const handled: string[] = [];
    const subscribers = ['a', 'b'].map((name) => ({ name, subscriber: transport.createSubscriber() }));
    for (const { name, subscriber } of subscribers) {
      await subscriber.subscribe(listener, async () => {
        handled.push(name);
        return { acknowledgement: 'ACK' };
      });
    }
    for (let n = 0; n < 6; n++) transport.broker.publish({ topic: 'order.created', content: n });
    await transport.broker.drain();
    expect(handled).toHaveLength(6);
    expect(handled.filter((name) => name === 'a').length).toBeGreaterThan(0);
    expect(handled.filter((name) => name === 'b').length).toBeGreaterThan(0);
    for (const { subscriber } of subscribers) await subscriber.close();
  });

  it('says it cannot honour a selector, a backlog limit or startFrom latest, one reason each', () => {
    const transport = new InMemoryTransport();
    expect(transport.unsupported({ ...listener, startFrom: 'earliest', concurrency: 4, ackMode: 'manual' })).toEqual([]);
    expect(
      transport.unsupported({
        ...listener,
        selector: "region = 'EU'",
        backlogLimit: { maxBacklog: 10, overflow: 'dropOldest' },
        startFrom: 'latest',
      }),
    ).toEqual([
      'selector "region = \'EU\'": the in-memory broker has no selectors and would deliver every message',
      'maxBacklog 10 (dropOldest): the in-memory broker keeps no backlog limits and would never apply it',
      "startFrom 'latest': the in-memory broker starts every subscription at the first message of each topic",
    ]);
    expect(transport.unsupported({ ...listener, startFrom: { time: '2026-12-07T10:00:00Z' } })).toEqual([
      'startFrom {"time":"2026-12-07T10:00:00Z"}: the in-memory broker starts every subscription at the first message of each topic',
    ]);
  });

  it('is what MmmqTestingModule provides, over the broker it provides', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [MmmqTestingModule.forRoot({ maxNackRetries: 1 })] }).compile();
    expect(moduleRef.get(InMemoryTransport).broker).toBe(moduleRef.get(InMemoryBroker));
    await moduleRef.close();
  });
});
