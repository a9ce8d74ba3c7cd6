import { Injectable } from '@nestjs/common';
import { MMMQListener, NonRetriableError } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

/** Class style: one way to refuse is to throw a NonRetriableError, the other to return one. */
@Injectable()
@MMMQListener('refund.requested')
class RefundListener implements MMMQListener<{ refundId: string }> {
  readonly attempts: string[] = [];

  handle(content: { refundId: string }): NonRetriableError | void {
    this.attempts.push(content.refundId);
    if (content.refundId === 'thrown') throw new NonRetriableError('refund thrown refers to an unknown order');
    if (content.refundId === 'returned') return new NonRetriableError('refund returned exceeds the amount paid');
  }
}

const CONSUMER_ID = 'billing.refund-listener';

describe('a NonRetriableError from a handler', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;

  beforeAll(async () => {
    broker = await startBroker();
    consumer = await startRegisteredConsumer(broker, [RefundListener]);
  });
  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('dead-letters the message at once, thrown or returned, with reason REJECTED', async () => {
    for (const refundId of ['thrown', 'returned', 'fine']) await broker.publish('refund.requested', { refundId });
    const listener = consumer.app.get(RefundListener);
    await waitFor(() => listener.attempts.includes('fine'), 'the last refund');
    await broker.caughtUp(CONSUMER_ID, 'refund.requested');

    expect(listener.attempts).toEqual(['thrown', 'returned', 'fine']);
    const deadLetters = await broker.deadLetters(CONSUMER_ID);
    expect(
      deadLetters.map((letter) => [letter.content.refundId, letter.headers['mmmq-dlq-reason'], letter.headers['mmmq-dlq-attempts']]),
    ).toEqual([
      ['thrown', 'REJECTED', 1],
      ['returned', 'REJECTED', 1],
    ]);
    expect(deadLetters.map((letter) => letter.headers['mmmq-dlq-last-error'])).toEqual([
      'refund thrown refers to an unknown order',
      'refund returned exceeds the amount paid',
    ]);
  });
});
