import { StreamRequestKind } from '@mmmq/core';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { STREAM_ON, StreamClient } from './stream-client';

describe('publish stream: an invalid request gets its 4xx and changes nothing, later requests still go through', () => {
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

  it('NACKs bad JSON, a reserved topic, a batch with an invalid message and an unknown kind, and ACKs what follows', async () => {
    client.send(1, '{"topic":"t","content":');
    client.send(2, { topic: '__dlq.x', content: 1 });
    client.send(3, { messages: [{ topic: 't', content: 1 }, { topic: 'u' }] }, StreamRequestKind.PUBLISH_BATCH);
    client.send(4, { topic: 't', content: 1 }, 9 as StreamRequestKind);
    client.send(5, { topic: 't', id: 'good', content: 1 });
    for (const id of [1, 2, 3, 4]) {
      const answer = await client.answer(id);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ acknowledgement: 'NACK', message: expect.any(String) });
    }
    expect((await client.answer(4)).body.message).toMatch(/Unknown request kind 9/);
    expect(await client.answer(5)).toEqual({
      status: 200,
      body: { acknowledgement: 'ACK', id: 'good', topic: 't', offset: 0, deliveryMode: 'persistent' },
    });
    expect(broker.topics.get('t')!.tailOffset).toBe(1);
    expect(broker.topics.get('u')).toBeUndefined();
  });
});
