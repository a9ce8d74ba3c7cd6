import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { STREAM_ON, StreamClient } from './stream-client';

describe('publish stream: after a storage failure, later requests on the connection are refused unstored', () => {
  let broker: BrokerApp;
  const clients: StreamClient[] = [];

  beforeAll(async () => {
    broker = await startBroker(STREAM_ON);
    // A plain file where the topic's directory belongs: a real I/O failure, not a simulated one.
    await mkdir(join(broker.rootDir, 'topics'), { recursive: true });
    await writeFile(join(broker.rootDir, 'topics', 'blocked'), 'not a directory');
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await broker.close();
  });

  it('answers 503 to the failed request and to every later one, so the producer can resend them in order', async () => {
    const client = StreamClient.connect(broker);
    clients.push(client);
    client.send(1, { topic: 'fine', content: 'before' });
    client.send(2, { topic: 'blocked', content: 'fails' });
    client.send(3, { topic: 'fine', content: 'after' });
    expect((await client.answer(1)).status).toBe(200);
    const failed = await client.answer(2);
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(/blocked/), retryAfterSeconds: 1 });
    const fenced = await client.answer(3);
    expect(fenced.status).toBe(503);
    expect(fenced.body.message).toMatch(/^Not stored: an earlier publish on this connection failed/);
    expect(broker.topics.get('fine')!.tailOffset).toBe(1);

    const fresh = StreamClient.connect(broker);
    clients.push(fresh);
    fresh.send(1, { topic: 'fine', content: 'after' });
    expect(await fresh.answer(1)).toMatchObject({ status: 200, body: { acknowledgement: 'ACK', offset: 1 } });
  });
});
