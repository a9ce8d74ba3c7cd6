import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

@Injectable()
class AuditListener {
  readonly offsets: number[] = [];

  @MMMQListener('audit.*')
  onEvent(event: { n: number }, context: MessageContext): void {
    if (event.n === 7) throw new Error('cannot audit 7 yet');
    this.offsets.push(context.offset);
  }
}

const CONSUMER_ID = 'billing.audit-listener.on-event';

describe('batched pushes', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;

  beforeAll(async () => {
    broker = await startBroker();
    for (let n = 0; n < 120; n++) await broker.publish('audit.log', { n });
    consumer = await startRegisteredConsumer(broker, [AuditListener], { deliveryBatchSize: 50 });
  });
  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('are asked for at registration and handled in order, a failing message retried and dead-lettered alone', async () => {
    const listener = consumer.app.get(AuditListener);
    await waitFor(() => listener.offsets.length === 119, 'every auditable event');
    await broker.caughtUp(CONSUMER_ID, 'audit.log');

    expect(listener.offsets).toEqual(Array.from({ length: 120 }, (_, n) => n).filter((n) => n !== 7));
    const dispatcher = await broker.request('GET', `/mmmq/dispatchers/${CONSUMER_ID}`);
    expect(dispatcher.body).toMatchObject({ consumerId: CONSUMER_ID, batchSize: 50 });
    const deadLetters = await broker.deadLetters(CONSUMER_ID);
    expect(deadLetters.map((letter: { content: unknown }) => letter.content)).toEqual([{ n: 7 }]);
    // Four NACKs; a push made before the consumer listened (registration comes first) may add an attempt.
    expect(deadLetters[0].headers['mmmq-dlq-reason']).toBe('NACK');
    expect(deadLetters[0].headers['mmmq-dlq-attempts']).toBeGreaterThanOrEqual(4);
  });
});
