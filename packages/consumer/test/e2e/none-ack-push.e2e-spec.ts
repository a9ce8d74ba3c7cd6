import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { Gate } from '../support/gate';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

const started: number[] = [];
let gate = new Gate();

@Injectable()
class MetricsListener {
  @MMMQListener({ pattern: 'metric.*', ackMode: 'none' })
  async onSample(content: { n: number }, _context: MessageContext): Promise<void> {
    started.push(content.n);
    await gate.promise;
  }
}

const CONSUMER_ID = 'billing.metrics-listener.on-sample';

describe('ackMode none on pushes (real broker)', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    gate.open();
    await consumer?.close();
    await broker?.close();
  });

  it('acknowledges on receipt, before the handler finishes, so a consumer crash loses what it had not handled', async () => {
    // One message per push: a batch is one job, and a batch already started runs to its end.
    consumer = await startRegisteredConsumer(broker, [MetricsListener], { shutdownTimeoutMs: 0, deliveryBatchSize: 1 });
    for (const n of [1, 2, 3]) await broker.publish('metric.cpu', { n });
    // The broker has everything settled while the first handler is still blocked and the others wait.
    await broker.caughtUp(CONSUMER_ID, 'metric.cpu');
    expect(started).toEqual([1]);

    await consumer.close(); // stops before 2 and 3 ran, and abandons 1
    gate.open();
    gate = new Gate();
    gate.open();
    consumer = await startRegisteredConsumer(broker, [MetricsListener], { deliveryBatchSize: 1 });
    await broker.publish('metric.cpu', { n: 4 });
    await waitFor(() => started.includes(4), 'the next message after the restart');
    await broker.caughtUp(CONSUMER_ID, 'metric.cpu');
    expect(started).toEqual([1, 4]);
  });
});
