import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

const MESSAGES = 120;
const KEYS = 4;
const CONSUMER_ID = 'billing.audit-listener.on-entry';

/** Handlers that take a while, so that one push at a time would run them one after another. */
@Injectable()
class AuditListener {
  readonly handled: Array<{ n: number; key: string }> = [];
  running = 0;
  maxRunning = 0;
  private readonly runningByKey = new Map<string, number>();
  keyOverlapped = false;

  @MMMQListener('audit.*', { ordered: false, concurrency: 8 })
  async onEntry(entry: { n: number }, context: MessageContext): Promise<void> {
    const key = String(context.headers['mmmq-ordering-key']);
    this.maxRunning = Math.max(this.maxRunning, ++this.running);
    const byKey = (this.runningByKey.get(key) ?? 0) + 1;
    if (byKey > 1) this.keyOverlapped = true;
    this.runningByKey.set(key, byKey);
    await new Promise((resolve) => setTimeout(resolve, 15));
    this.runningByKey.set(key, this.runningByKey.get(key)! - 1);
    this.running--;
    this.handled.push({ n: entry.n, key });
  }
}

describe('a listener with ordered: false', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;

  beforeAll(async () => {
    broker = await startBroker();
    const messages = Array.from({ length: MESSAGES }, (_, n) => ({
      topic: 'audit.entry',
      content: { n },
      headers: { 'mmmq-ordering-key': `customer-${n % KEYS}` },
    }));
    expect((await broker.request('POST', '/mmmq/messages/batch', { messages })).status).toBe(200);
    consumer = await startRegisteredConsumer(broker, [AuditListener], { deliveryBatchSize: 1, deliveryMaxInFlight: 8 });
  });
  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('registers an unordered dispatcher and gets its pushes in parallel, keeping per-key order', async () => {
    const listener = consumer.app.get(AuditListener);
    await waitFor(() => listener.handled.length >= MESSAGES, 'every audit entry');
    await broker.caughtUp(CONSUMER_ID, 'audit.entry');

    const dispatcher = await broker.request('GET', `/mmmq/dispatchers/${CONSUMER_ID}`);
    expect(dispatcher.body).toMatchObject({ consumerId: CONSUMER_ID, batchSize: 1, maxInFlight: 8, ordered: false });
    // One message a push: several handlers at once means several pushes being handled at once (numbered pushes
    // would run one after another), one per key at most.
    expect(listener.maxRunning).toBeGreaterThan(1);
    expect(listener.maxRunning).toBeLessThanOrEqual(KEYS);
    expect(listener.keyOverlapped).toBe(false);
    for (let k = 0; k < KEYS; k++) {
      const key = `customer-${k}`;
      // A push sent before the consumer listened fails and is resent: first handlings only.
      const ofKey = listener.handled.filter((entry) => entry.key === key).map((entry) => entry.n);
      const firstTime = ofKey.filter((n, i) => ofKey.indexOf(n) === i);
      expect(firstTime).toEqual(Array.from({ length: MESSAGES }, (_, n) => n).filter((n) => n % KEYS === k));
    }
  });
});
