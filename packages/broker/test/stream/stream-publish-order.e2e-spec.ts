import { StreamRequestKind } from '@mmmq/core';
import { decodeEnvelope } from '../../src/internal';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { STREAM_ON, StreamClient } from './stream-client';

describe('publish stream: requests sent without waiting are stored in the order they were sent', () => {
  let broker: BrokerApp;
  let client: StreamClient;

  beforeAll(async () => {
    broker = await startBroker(STREAM_ON);
    client = StreamClient.connect(broker);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  it('answers every request once durable, with offsets in send order', async () => {
    const requests = 200;
    for (let n = 0; n < requests; n++) {
      if (n % 2 === 0) client.send(n, { topic: 'order.created', id: `m${n}`, content: { n } });
      else {
        const messages = [0, 1, 2].map((k) => ({ topic: 'order.created', id: `m${n}.${k}`, content: { n, k } }));
        client.send(n, { messages }, StreamRequestKind.PUBLISH_BATCH);
      }
    }
    const queue = () => broker.topics.get('order.created')!;
    let expected = 0;
    for (let n = 0; n < requests; n++) {
      const answer = await client.answer(n);
      expect(answer.status).toBe(200);
      if (n % 2 === 0) {
        expect(answer.body).toEqual({
          acknowledgement: 'ACK',
          id: `m${n}`,
          topic: 'order.created',
          offset: expected,
          deliveryMode: 'persistent',
        });
        expected += 1;
      } else {
        expect(answer.body.messages.map((message: { offset: number }) => message.offset)).toEqual([expected, expected + 1, expected + 2]);
        expected += 3;
      }
      // An answer is sent only after the commit that made the message readable.
      expect(queue().tailOffset).toBeGreaterThanOrEqual(expected);
    }
    const stored = await queue().peekMany(0, expected);
    const ids = stored.map((payload) => decodeEnvelope(payload as Buffer).id);
    expect(ids).toEqual(Array.from({ length: requests }, (_, n) => (n % 2 === 0 ? [`m${n}`] : [0, 1, 2].map((k) => `m${n}.${k}`))).flat());
  });
});
