import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { PullClient } from './pull.fixture';

describe('the first message of a new topic', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());

  it('is fetched by a fetch without a wait sent right after the publish is acknowledged, topic after topic', async () => {
    const consumer = new PullClient(broker, 'fresh-reader');
    await consumer.register({ pattern: 'fresh.*' });
    const empty: string[] = [];
    for (let n = 0; n < 20; n++) {
      const topic = `fresh.t${n}`;
      const published = await broker.request('POST', '/mmmq/messages', { topic, content: { n } });
      expect(published.status).toBe(200);
      const fetched = await consumer.fetch({ waitMs: 0, max: 10 });
      if (fetched.length === 0) empty.push(topic);
      else expect(fetched.map((message) => [message.topic, message.content])).toEqual([[topic, { n }]]);
      if (fetched.length > 0) await consumer.ack(fetched.map((message) => message.lease));
    }
    expect(empty).toEqual([]);
  });

  it('is in every matching subscription of a batch that creates several topics at once', async () => {
    const readers = [new PullClient(broker, 'batch-a'), new PullClient(broker, 'batch-b')];
    for (const reader of readers) await reader.register({ pattern: 'batch.**' });
    const messages = [0, 1, 2, 3, 4].map((n) => ({ topic: `batch.new.t${n}`, content: { n } }));
    expect((await broker.request('POST', '/mmmq/messages/batch', { messages })).status).toBe(200);
    for (const reader of readers) {
      const fetched = await reader.fetch({ waitMs: 0, max: 10 });
      expect(fetched.map((message) => message.topic).sort()).toEqual(messages.map((message) => message.topic));
    }
  });
});
