import { InvalidTopicError } from '@mmmq/core';
import { BrokerUnreachableError, ProduceError } from '../src';
import { ProducerApp } from './support/producer-app';
import { RecordingGateway, startProducerWith } from './support/recording-gateway';

const lostConnection = () => new BrokerUnreachableError('Could not reach the broker: socket hang up');

describe('Producer.produceBatch with several topics', () => {
  let app: ProducerApp | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('sends the whole batch as one request, in order, and resolves each message with its own topic and offset', async () => {
    const gateway = new RecordingGateway();
    app = await startProducerWith(gateway);
    const published = await app.producer.produceBatch([
      { topic: 'orders', content: 1, id: 'order-1' },
      { topic: 'invoices', content: 2, id: 'invoice-1' },
      { topic: 'orders', content: 3, id: 'order-2' },
    ]);
    expect(gateway.requests.map((request) => request.map((message) => message.id))).toEqual([['order-1', 'invoice-1', 'order-2']]);
    expect(published).toEqual([
      { id: 'order-1', topic: 'orders', offset: 0, deliveryMode: 'persistent' },
      { id: 'invoice-1', topic: 'invoices', offset: 0, deliveryMode: 'persistent' },
      { id: 'order-2', topic: 'orders', offset: 1, deliveryMode: 'persistent' },
    ]);
  });

  it('retries the whole batch with the same ids and the same bytes, never a part of it', async () => {
    const gateway = new RecordingGateway([lostConnection(), lostConnection(), 'ack']);
    app = await startProducerWith(gateway);
    await app.producer.produceBatch([
      { topic: 'orders', content: { n: 1 } },
      { topic: 'invoices', content: { n: 2 } },
    ]);
    expect(gateway.requests).toHaveLength(3);
    expect(gateway.requests[1]).toEqual(gateway.requests[0]);
    expect(gateway.requests[2]).toEqual(gateway.requests[0]);
    expect(app.logger.warnings[0]).toMatch(
      /^Publishing a batch of 2 messages to orders and invoices failed \(attempt 1 of 4\): .*with the same ids$/,
    );
  });

  it('rejects with a ProduceError naming every topic and id once the retries are spent', async () => {
    const gateway = new RecordingGateway([lostConnection()]);
    app = await startProducerWith(gateway, { maxRetryCount: 1 });
    const error = await app.producer
      .produceBatch([
        { topic: 'orders', content: 1, id: 'a' },
        { topic: 'invoices', content: 2, id: 'b' },
        { topic: 'refunds', content: 3, id: 'c' },
        { topic: 'orders', content: 4, id: 'd' },
      ])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProduceError);
    expect(error).toMatchObject({
      topic: 'orders',
      topics: ['orders', 'invoices', 'refunds'],
      ids: ['a', 'b', 'c', 'd'],
      attempts: 2,
    });
    expect((error as Error).message).toMatch(
      /^Publishing a batch of 4 messages to orders, invoices and refunds failed after 2 attempts: .*same ids/,
    );
  });

  it('sends nothing when one message is invalid, naming its index', async () => {
    const gateway = new RecordingGateway();
    app = await startProducerWith(gateway);
    const batch = [
      { topic: 'orders', content: 1 },
      { topic: 'a..b', content: 2 },
    ];
    await expect(app.producer.produceBatch(batch)).rejects.toThrow(InvalidTopicError);
    await expect(app.producer.produceBatch(batch)).rejects.toThrow(/^messages\[1\]: Topic name "a\.\.b"/);
    expect(gateway.requests).toEqual([]);
  });
});
