import { InMemoryTransport } from '@mmmq/core/testing';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { INestApplication, Injectable } from '@nestjs/common';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';
import { initConsumer } from '../support/consumer-context';

@Injectable()
class Billing {
  readonly billed: string[] = [];
  readonly attempts = new Map<string, number>();

  @MMMQListener('order.*')
  async onOrder(order: { id: string }, context: MessageContext): Promise<void> {
    this.attempts.set(order.id, context.deliveryCount);
    if (order.id === 'broken') throw new Error('cannot bill it');
    this.billed.push(`${context.topic}:${order.id}`);
  }

  @MMMQListener('refund.*', { ackMode: 'manual' })
  async onRefund(refund: { id: string }, context: MessageContext): Promise<void> {
    if (refund.id === 'suspicious') return context.terminate('needs a human');
    this.billed.push(`refund:${refund.id}`);
    await context.ack();
  }
}

/** The one-option switch, on the in-memory transport: the same producer and listener code, no MmmqTestingModule. */
describe('an application with producer and consumer on transport: new InMemoryTransport()', () => {
  let app: INestApplication;
  let transport: InMemoryTransport;
  let producer: Producer;
  let billing: Billing;

  beforeEach(async () => {
    transport = new InMemoryTransport();
    ({ app } = await initConsumer({
      imports: [MmmqProducerModule.forRoot({ transport, retryDelayMs: 1 }), MmmqConsumerModule.forRoot({ app: 'billing', transport })],
      providers: [Billing],
    }));
    producer = app.get(Producer);
    billing = app.get(Billing);
  });
  afterEach(() => app.close());

  it('publishes with the Producer and handles with the listener, acknowledged once handled', async () => {
    const published = await producer.produce('order.created', { id: 'o-1' });
    await producer.produceBatch([
      { topic: 'order.paid', content: { id: 'o-1' } },
      { topic: 'order.created', content: { id: 'o-2' } },
    ]);
    await transport.broker.drain();
    expect(published).toMatchObject({ topic: 'order.created', offset: 0, deliveryMode: 'persistent' });
    expect(billing.billed.sort()).toEqual(['order.created:o-1', 'order.created:o-2', 'order.paid:o-1']);
    expect(transport.broker.deadLetters()).toEqual([]);
  });

  it('retries a NACKed message, then dead-letters it with the last error', async () => {
    await producer.produce('order.created', { id: 'broken' }, { id: 'm-broken' });
    await transport.broker.drain();
    expect(billing.attempts.get('broken')).toBe(4);
    expect(transport.broker.deadLetters('billing.billing.on-order')).toEqual([
      expect.objectContaining({ id: 'm-broken', reason: 'NACK', attempts: 4, lastError: 'cannot bill it' }),
    ]);
  });

  it('settles manual listeners as the handler says: ack, or terminate straight to the dead letters', async () => {
    await producer.produce('refund.issued', { id: 'r-1' });
    await producer.produce('refund.issued', { id: 'suspicious' });
    await transport.broker.drain();
    expect(billing.billed).toEqual(['refund:r-1']);
    expect(transport.broker.deadLetters('billing.billing.on-refund')).toEqual([
      expect.objectContaining({ reason: 'REJECTED', attempts: 1, lastError: 'needs a human' }),
    ]);
  });
});
