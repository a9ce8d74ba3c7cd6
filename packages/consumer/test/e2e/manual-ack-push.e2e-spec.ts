import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { Gate } from '../support/gate';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

const attempts: Array<{ n: number; deliveryCount: number }> = [];
const committed: number[] = [];
let hang: Gate | undefined;

@Injectable()
class LedgerListener {
  /** Acknowledges only after its own "commit", as a user would after a database transaction. */
  @MMMQListener('ledger.*')
  async onEntry(content: { n: number }, context: MessageContext): Promise<void> {
    attempts.push({ n: content.n, deliveryCount: context.deliveryCount });
    const first = context.deliveryCount === 1;
    if (content.n === 1 && first) return void (await context.nack({ message: 'ledger locked' }));
    if (content.n === 2) return void (await context.terminate('account closed'));
    if (content.n === 3 && first) return; // forgot to settle: NACKed, logged, retried
    if (content.n === 4 && first && hang) return void (await hang.promise); // crashes before settling
    committed.push(content.n);
    await context.ack();
  }
}

const CONSUMER_ID = 'billing.ledger-listener.on-entry';

describe('ackMode manual on pushes (real broker)', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    hang?.open();
    await consumer?.close();
    await broker?.close();
  });

  it('acknowledges, retries and dead-letters as the handler settles; an unsettled return is a NACK', async () => {
    consumer = await startRegisteredConsumer(broker, [LedgerListener], { ackMode: 'manual' });
    for (const n of [0, 1, 2, 3]) await broker.publish('ledger.posted', { n });
    await waitFor(() => committed.length === 3, 'messages 0, 1 and 3 to be committed');
    await broker.caughtUp(CONSUMER_ID, 'ledger.posted');

    expect([...committed].sort()).toEqual([0, 1, 3]);
    expect(attempts.filter(({ n }) => n === 1).map(({ deliveryCount }) => deliveryCount)).toEqual([1, 2]);
    expect(attempts.filter(({ n }) => n === 3).map(({ deliveryCount }) => deliveryCount)).toEqual([1, 2]);
    expect(attempts.filter(({ n }) => n === 2)).toHaveLength(1);
    const deadLetters = await broker.deadLetters(CONSUMER_ID);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      content: { n: 2 },
      headers: { 'mmmq-dlq-reason': 'REJECTED', 'mmmq-dlq-last-error': 'account closed' },
    });
    await consumer.close();
    consumer = undefined;
  });

  it('redelivers a message whose handler had not settled when the consumer went down', async () => {
    hang = new Gate();
    consumer = await startRegisteredConsumer(broker, [LedgerListener], { ackMode: 'manual', shutdownTimeoutMs: 0 });
    await broker.publish('ledger.posted', { n: 4 });
    await waitFor(() => attempts.some(({ n }) => n === 4), 'the handler of 4 to start');
    await consumer.close();
    hang.open();
    expect(committed).not.toContain(4);

    consumer = await startRegisteredConsumer(broker, [LedgerListener], { ackMode: 'manual' });
    await waitFor(() => committed.includes(4), 'message 4 to come again and be committed');
    await broker.caughtUp(CONSUMER_ID, 'ledger.posted');
    expect(attempts.filter(({ n }) => n === 4).length).toBeGreaterThanOrEqual(2);
  });
});
