import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { Gate } from '../support/gate';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

// Shared by the application and its restarted successor, which have separate listener instances.
const attempts: Array<{ id: string; deliveryCount: number; redelivered: boolean }> = [];
const finished: string[] = [];
const stuck = new Gate();
let hang = true;

@Injectable()
class ExportListener {
  @MMMQListener('report.requested')
  async onReport(content: { name: string }, context: MessageContext): Promise<void> {
    attempts.push({ id: context.id, deliveryCount: context.deliveryCount, redelivered: context.redelivered });
    if (hang) await stuck.promise;
    finished.push(content.name);
  }
}

const CONSUMER_ID = 'billing.export-listener.on-report';

describe('graceful shutdown when a handler outlives shutdownTimeoutMs', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;

  beforeAll(async () => {
    broker = await startBroker();
    consumer = await startRegisteredConsumer(broker, [ExportListener], { shutdownTimeoutMs: 200 });
  });
  afterAll(async () => {
    stuck.open();
    await consumer?.close();
    await broker?.close();
  });

  it('does not acknowledge the unfinished message, which is redelivered once the consumer is back', async () => {
    const { id } = await broker.publish('report.requested', { name: 'quarterly' });
    await waitFor(() => attempts.length === 1, 'the handler to start');

    await consumer.close();
    const subscription = await broker.subscription(CONSUMER_ID, 'report.requested');
    expect(subscription).toMatchObject({ position: 0, lag: 1 });
    expect(finished).toEqual([]);

    hang = false;
    consumer = await startRegisteredConsumer(broker, [ExportListener], {}, consumer.port);
    await waitFor(() => finished.includes('quarterly'), 'the redelivered message to be handled');
    await broker.caughtUp(CONSUMER_ID, 'report.requested');
    expect(attempts[0]).toEqual({ id, deliveryCount: 1, redelivered: false });
    expect(attempts.at(-1)).toMatchObject({ id, redelivered: true });
    expect(await broker.deadLetters(CONSUMER_ID)).toEqual([]);
  });
});
