import { Test } from '@nestjs/testing';
import { Acknowledgement, ConsumerAcknowledgement } from '../../src/acknowledgement';
import { InvalidMessageError } from '../../src/errors/invalid-message-error';
import { InvalidTopicError } from '../../src/errors/invalid-topic-error';
import { InMemoryBroker } from '../../src/testing/in-memory-broker';
import { MmmqTestingModule } from '../../src/testing/mmmq-testing.module';
import { DeliveryRequest } from '../../src/wire';

const ack: ConsumerAcknowledgement = { acknowledgement: Acknowledgement.ACK };

describe('InMemoryBroker', () => {
  it('delivers to matching subscribers in order, after publish returned', async () => {
    const broker = new InMemoryBroker();
    const seen: string[] = [];
    broker.subscribe('orders', 'order.*', async (delivery) => {
      seen.push(`${delivery.topic}:${(delivery.content as { n: number }).n}`);
      return ack;
    });
    broker.subscribe('payments', 'payment.**', async () => ack);
    expect(broker.publish({ topic: 'order.created', content: { n: 1 } })).toEqual({
      id: expect.any(String),
      topic: 'order.created',
      offset: 0,
      deliveryMode: 'persistent',
    });
    broker.publish({ topic: 'order.created', content: { n: 2 }, id: 'two', headers: { h: 1 } });
    broker.publish({ topic: 'payment.done', content: { n: 3 } });
    expect(seen).toEqual([]);
    await broker.drain();
    expect(seen).toEqual(['order.created:1', 'order.created:2']);
    expect(broker.published('order.created').map((message) => message.id)).toContain('two');
    expect(broker.published()).toHaveLength(3);
  });

  it('dead-letters a message whose expiry passed before a delivery (EXPIRED), and hands expiresAt and priority to the handler', async () => {
    const broker = new InMemoryBroker();
    broker.publish({ topic: 'order.created', content: 'late', expiresAt: 1 });
    broker.publish({ topic: 'order.created', content: 'fresh', ttlMs: 60_000, priority: 8 });
    broker.publish({ topic: 'order.created', content: 'plain' });
    const seen: DeliveryRequest[] = [];
    broker.subscribe('orders', 'order.*', async (delivery) => {
      seen.push(delivery);
      return ack;
    });
    await broker.drain();
    expect(seen.map((delivery) => delivery.content)).toEqual(['fresh', 'plain']);
    expect(seen[0].expiresAt! - seen[0].publishedAt!).toBe(60_000);
    expect(seen[0].priority).toBe(8);
    expect(seen[1]).not.toHaveProperty('expiresAt');
    expect(broker.deadLetters('orders').map((letter) => [letter.content, letter.reason, letter.attempts])).toEqual([
      ['late', 'EXPIRED', 0],
    ]);
    expect(() => broker.publish({ topic: 'order.created', content: 1, ttlMs: 1, expiresAt: 1 })).toThrow(InvalidMessageError);
  });

  it('delivers the backlog to a late subscriber and messages published by handlers', async () => {
    const broker = new InMemoryBroker();
    broker.publish({ topic: 'order.created', content: 1 });
    const seen: DeliveryRequest[] = [];
    broker.subscribe('chain', '**', async (delivery) => {
      seen.push(delivery);
      if (delivery.topic === 'order.created') broker.publish({ topic: 'invoice.created', content: 2 });
      return ack;
    });
    await broker.drain();
    expect(seen.map((delivery) => delivery.topic)).toEqual(['order.created', 'invoice.created']);
  });

  it('retries NACKs and throws, then dead-letters; retry:false dead-letters at once', async () => {
    const broker = new InMemoryBroker();
    const attempts: number[] = [];
    broker.subscribe('billing', 'order.*', async (delivery) => {
      attempts.push(delivery.deliveryCount);
      if (delivery.content === 'poison') return { acknowledgement: Acknowledgement.NACK, retry: false, message: 'bad' };
      throw new Error('handler failed');
    });
    broker.publishBatch([
      { topic: 'order.created', content: 'flaky' },
      { topic: 'order.created', content: 'poison' },
    ]);
    await broker.drain();
    expect(attempts).toEqual([1, 2, 3, 4, 1]);
    expect(
      broker.deadLetters('billing').map(({ content, reason, attempts: tries, lastError }) => ({ content, reason, tries, lastError })),
    ).toEqual([
      { content: 'flaky', reason: 'NACK', tries: 4, lastError: 'handler failed' },
      { content: 'poison', reason: 'REJECTED', tries: 1, lastError: 'bad' },
    ]);
  });

  it('validates like the broker: reserved or invalid topics, bad ids, content that is not JSON; a bad batch stores nothing', () => {
    const broker = new InMemoryBroker();
    expect(() => broker.publish({ topic: '__dlq.x', content: 1 })).toThrow(InvalidTopicError);
    expect(() => broker.publish({ topic: 'a..b', content: 1 })).toThrow(InvalidTopicError);
    expect(() => broker.publish({ topic: 'a', content: 1, id: 'has space' })).toThrow(InvalidMessageError);
    expect(() => broker.publish({ topic: 'a', content: undefined })).toThrow(InvalidMessageError);
    expect(() =>
      broker.publishBatch([
        { topic: 'a', content: 1 },
        { topic: 'a', content: () => 1 },
      ]),
    ).toThrow(InvalidMessageError);
    expect(broker.published()).toEqual([]);
  });

  it('acknowledges a nonPersistent message without an offset, and a batch with any persistent message as persistent', () => {
    const broker = new InMemoryBroker();
    expect(broker.publish({ topic: 'metrics', content: 1, id: 'm', deliveryMode: 'nonPersistent' })).toEqual({
      id: 'm',
      topic: 'metrics',
      deliveryMode: 'nonPersistent',
    });
    const mixed = broker.publishBatch([
      { topic: 'metrics', content: 2, deliveryMode: 'nonPersistent' },
      { topic: 'metrics', content: 3 },
    ]);
    expect(mixed.map(({ offset, deliveryMode }) => ({ offset, deliveryMode }))).toEqual([
      { offset: 1, deliveryMode: 'persistent' },
      { offset: 2, deliveryMode: 'persistent' },
    ]);
    expect(() => broker.publish({ topic: 'metrics', content: 4, deliveryMode: 'fast' as never })).toThrow(/"deliveryMode" must be one of/);
  });

  it('commits a batch spanning topics as one: consecutive offsets per topic, delivered only once all is stored', async () => {
    const broker = new InMemoryBroker();
    broker.publish({ topic: 'order.created', content: 0 });
    const seen: string[] = [];
    broker.subscribe('audit', '**', async (delivery) => {
      seen.push(`${delivery.topic}@${delivery.offset}:${broker.published().length}`);
      return ack;
    });
    const published = broker.publishBatch([
      { topic: 'order.created', content: 1 },
      { topic: 'invoice.created', content: 2 },
      { topic: 'order.created', content: 3 },
    ]);
    expect(published.map(({ topic, offset }) => `${topic}@${offset}`)).toEqual(['order.created@1', 'invoice.created@0', 'order.created@2']);
    await broker.drain();
    // Every delivery, the first one included, saw all four messages stored.
    expect(seen.sort()).toEqual(['invoice.created@0:4', 'order.created@0:4', 'order.created@1:4', 'order.created@2:4']);
    const batch = broker.published().filter((message) => published.some(({ id }) => id === message.id));
    expect(new Set(batch.map((message) => message.publishedAt)).size).toBe(1);
  });

  it('stores nothing of a batch spanning topics when a message of any topic is invalid', () => {
    const broker = new InMemoryBroker();
    expect(() =>
      broker.publishBatch([
        { topic: 'order.created', content: 1 },
        { topic: 'invoice.created', content: 2 },
        { topic: 'refund.created', content: 3, id: 'has space' },
      ]),
    ).toThrow(InvalidMessageError);
    expect(broker.published()).toEqual([]);
  });

  it('hands each receiver its own copy, as the wire would', async () => {
    const broker = new InMemoryBroker();
    const content = { when: new Date(0) };
    let received: unknown;
    broker.subscribe('x', '**', async (delivery) => {
      received = delivery.content;
      return ack;
    });
    broker.publish({ topic: 'a', content });
    await broker.drain();
    expect(received).toEqual({ when: '1970-01-01T00:00:00.000Z' });
  });

  it('reset forgets messages and dead letters and keeps subscriptions', async () => {
    const broker = new InMemoryBroker();
    let count = 0;
    broker.subscribe('x', '**', async () => {
      count++;
      return ack;
    });
    broker.publish({ topic: 'a', content: 1 });
    await broker.drain();
    broker.reset();
    expect(broker.published()).toEqual([]);
    broker.publish({ topic: 'a', content: 2 });
    await broker.drain();
    expect(count).toBe(2);
  });

  it('is provided globally by MmmqTestingModule', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [MmmqTestingModule.forRoot({ maxNackRetries: 0 })] }).compile();
    const broker = moduleRef.get(InMemoryBroker);
    broker.subscribe('x', '**', async () => ({ acknowledgement: Acknowledgement.NACK }));
    broker.publish({ topic: 'a', content: 1 });
    await broker.drain();
    expect(broker.deadLetters('x')[0].attempts).toBe(1);
  });
});
