import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

@Injectable()
class SlowListener {
  readonly handled: Array<{ topic: string; n: number }> = [];

  @MMMQListener('load.*')
  async onLoad(content: { n: number }, context: MessageContext): Promise<void> {
    await sleep(50);
    this.handled.push({ topic: context.topic, n: content.n });
  }
}

const CONSUMER_ID = 'billing.slow-listener.on-load';
const TOPICS = ['load.a', 'load.b', 'load.c', 'load.d', 'load.e'];
const PER_TOPIC = 4;

describe('a consumer whose queue is full', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('answers 503 so the broker backs off, loses nothing and keeps each topic in order', async () => {
    // A backlog in every topic before the consumer starts: five subscriptions push at once to one slow listener.
    for (let n = 0; n < PER_TOPIC; n++) {
      await Promise.all(TOPICS.map((topic) => broker.publish(topic, { n })));
    }
    consumer = await startRegisteredConsumer(broker, [SlowListener], { queueSize: 1 });
    const listener = consumer.app.get(SlowListener);
    await waitFor(() => listener.handled.length >= TOPICS.length * PER_TOPIC, 'every message to be handled', 60_000);
    for (const topic of TOPICS) await broker.caughtUp(CONSUMER_ID, topic);

    for (const topic of TOPICS) {
      const handled = listener.handled.filter((entry) => entry.topic === topic).map((entry) => entry.n);
      expect({ topic, handled }).toEqual({ topic, handled: [0, 1, 2, 3] });
    }
    const subscriptions = await Promise.all(TOPICS.map((topic) => broker.subscription(CONSUMER_ID, topic)));
    const refused = subscriptions.filter((subscription) => subscription.stats.lastError?.includes('HTTP 503'));
    expect(refused.length).toBeGreaterThan(0);
    expect(await broker.deadLetters(CONSUMER_ID)).toEqual([]);
  });
});
