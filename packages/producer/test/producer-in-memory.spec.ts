import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { Injectable } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { MessageRejectedError, MmmqProducerModule, Producer } from '../src';

interface OrderEvents {
  'order.created': { orderId: number };
  'order.cancelled': { orderId: number; reason: string };
}

@Injectable()
class OrderService {
  constructor(readonly producer: Producer<OrderEvents>) {}
}

describe('Producer with MmmqTestingModule', () => {
  let module: TestingModule;
  let broker: InMemoryBroker;
  let orders: OrderService;

  beforeEach(async () => {
    module = await Test.createTestingModule({
      // `broker` is given, yet ignored: the in-memory broker wins, so no test ever reaches a real one by mistake.
      imports: [MmmqTestingModule.forRoot(), MmmqProducerModule.forRoot({ broker: 'http://127.0.0.1:1' })],
      providers: [OrderService],
    }).compile();
    await module.init();
    broker = module.get(InMemoryBroker);
    orders = module.get(OrderService);
  });

  afterEach(() => module.close());

  it('publishes to the in-memory broker instead of over HTTP', async () => {
    const published = await orders.producer.produce('order.created', { orderId: 1 }, { headers: { vip: true } });
    expect(published).toEqual({ id: expect.any(String), topic: 'order.created', offset: 0, deliveryMode: 'persistent' });
    expect(broker.published('order.created')).toEqual([
      expect.objectContaining({ id: published.id, content: { orderId: 1 }, headers: { vip: true }, offset: 0 }),
    ]);
  });

  it('publishes batches atomically there too', async () => {
    const published = await orders.producer.produceBatch([
      { topic: 'order.cancelled', content: { orderId: 1, reason: 'duplicate' }, id: 'c-1' },
      { topic: 'order.cancelled', content: { orderId: 2, reason: 'fraud' } },
    ]);
    expect(published.map((message) => message.offset)).toEqual([0, 1]);
    expect(broker.published('order.cancelled').map((message) => message.id)).toEqual(published.map((message) => message.id));
  });

  it('publishes a batch spanning topics and a transaction as one commit there too', async () => {
    await orders.producer.produce('order.created', { orderId: 0 });
    const batch = await orders.producer.produceBatch([
      { topic: 'order.created', content: { orderId: 1 } },
      { topic: 'order.cancelled', content: { orderId: 1, reason: 'duplicate' } },
    ]);
    expect(batch.map(({ topic, offset }) => `${topic}@${offset}`)).toEqual(['order.created@1', 'order.cancelled@0']);
    const { result, published } = await orders.producer.transaction((tx) => {
      tx.produce('order.cancelled', { orderId: 2, reason: 'fraud' });
      tx.produce({ topic: 'order.created', content: { orderId: 3 } });
      return 'committed';
    });
    expect(result).toBe('committed');
    expect(published.map(({ topic, offset }) => `${topic}@${offset}`)).toEqual(['order.cancelled@1', 'order.created@2']);
    const ids = published.map((message) => message.id);
    const committed = broker.published().filter((message) => ids.includes(message.id));
    expect(committed.map((message) => message.content)).toEqual([{ orderId: 3 }, { orderId: 2, reason: 'fraud' }]);
    // One commit, one publishing time.
    expect(new Set(committed.map((message) => message.publishedAt)).size).toBe(1);
  });

  it('works with no options at all', async () => {
    const bare = await Test.createTestingModule({
      imports: [MmmqTestingModule.forRoot(), MmmqProducerModule.forRoot()],
    }).compile();
    await bare.get(Producer).produce('pings', 1);
    expect(bare.get(InMemoryBroker).published('pings')).toHaveLength(1);
    await bare.close();
  });

  it('reports what the in-memory broker refuses as the real broker would, without retrying', async () => {
    jest.spyOn(broker, 'publish').mockImplementation(() => {
      throw new (jest.requireActual('@mmmq/core').InvalidMessageError)('content is missing');
    });
    const error = await orders.producer.produce('order.created', { orderId: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect(error).toMatchObject({ status: 400, attempts: 1 });
    expect(broker.publish).toHaveBeenCalledTimes(1);
  });

  it('type-checks topics and contents against the event map', async () => {
    const typed: Producer<OrderEvents> = orders.producer;
    await typed.produce('order.cancelled', { orderId: 3, reason: 'late' });
    await typed.produce({ topic: 'order.created', content: { orderId: 4 } });
    // @ts-expect-error: not a topic of OrderEvents
    await typed.produce('order.shipped', { orderId: 5 }).catch(() => undefined);
    // @ts-expect-error: order.created content has no reason
    await typed.produce('order.created', { orderId: 6, reason: 'x' }).catch(() => undefined);
    // @ts-expect-error: order.cancelled needs a reason
    await typed.produceBatch([{ topic: 'order.cancelled', content: { orderId: 7 } }]).catch(() => undefined);
    await typed.transaction((tx) => {
      tx.produce('order.created', { orderId: 8 });
      tx.produce({ topic: 'order.cancelled', content: { orderId: 8, reason: 'test' } });
      // @ts-expect-error: not a topic of OrderEvents
      tx.produce('order.shipped', { orderId: 9 });
      // @ts-expect-error: order.cancelled needs a reason
      tx.produce({ topic: 'order.cancelled', content: { orderId: 10 } });
    });
    await typed.produceBatch([
      { topic: 'order.created', content: { orderId: 11 } },
      { topic: 'order.cancelled', content: { orderId: 11, reason: 'mixed topics are typed per message' } },
      // @ts-expect-error: order.created content has no reason
      { topic: 'order.created', content: { orderId: 12, reason: 'x' } },
    ]);
    const untyped: Producer = module.get(Producer);
    await untyped.produce('anything.goes', { any: 'content' });
    expect(broker.published().map((message) => message.topic)).toContain('anything.goes');
  });
});
