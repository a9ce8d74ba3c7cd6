import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

@Injectable()
class FlakyListener {
  readonly attempts: Array<{ n: number; deliveryCount: number; redelivered: boolean }> = [];

  @MMMQListener('payment.*')
  onPayment(content: { n: number }, context: MessageContext): void {
    this.attempts.push({ n: content.n, deliveryCount: context.deliveryCount, redelivered: context.redelivered });
    if (content.n === 1) throw new Error(`payment gateway timed out for ${content.n}`);
  }
}

const CONSUMER_ID = 'billing.flaky-listener.on-payment';

describe('a handler that keeps throwing', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;

  beforeAll(async () => {
    broker = await startBroker();
    consumer = await startRegisteredConsumer(broker, [FlakyListener]);
  });
  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('is retried by the broker, then dead-lettered with reason NACK after 4 attempts, and later messages flow', async () => {
    for (const n of [0, 1, 2]) await broker.publish('payment.captured', { n });
    const listener = consumer.app.get(FlakyListener);
    await waitFor(() => listener.attempts.some(({ n }) => n === 2), 'the message after the failing one');
    await broker.caughtUp(CONSUMER_ID, 'payment.captured');

    expect(listener.attempts.filter(({ n }) => n === 1)).toEqual([
      { n: 1, deliveryCount: 1, redelivered: false },
      { n: 1, deliveryCount: 2, redelivered: true },
      { n: 1, deliveryCount: 3, redelivered: true },
      { n: 1, deliveryCount: 4, redelivered: true },
    ]);
    // A retry goes out with the next push, after the pushes already on their way (maxInFlight), so 2 may come
    // between the attempts of 1; every other message arrives once, in order.
    expect(listener.attempts.map(({ n }) => n).filter((n) => n !== 1)).toEqual([0, 2]);
    const deadLetters = await broker.deadLetters(CONSUMER_ID);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      content: { n: 1 },
      headers: {
        'mmmq-dlq-reason': 'NACK',
        'mmmq-dlq-attempts': 4,
        'mmmq-dlq-last-error': 'payment gateway timed out for 1',
      },
    });
  });
});
