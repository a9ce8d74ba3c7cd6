import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { STREAM_ON, StreamClient } from './stream-client';

describe('publish stream: a wrong preamble or an oversized request closes the connection', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker({ ...STREAM_ON, http: { maxBodyBytes: 1024 } });
  });
  afterAll(() => broker.close());

  it('closes a connection that does not start with the MMMQ preamble (an HTTP client, say)', async () => {
    const client = StreamClient.connect(broker, Buffer.from('POST /mmmq/messages HTTP/1.1\r\n'));
    await client.closed;
    expect(client.socket.destroyed).toBe(true);
  });

  it('answers 413 to a request over http.maxBodyBytes, then closes the connection, storing nothing', async () => {
    const client = StreamClient.connect(broker);
    client.send(7, { topic: 'big', content: 'x'.repeat(2000) });
    const answer = await client.answer(7);
    expect(answer.status).toBe(413);
    expect(answer.body.message).toMatch(/exceeds the limit of 1024 bytes; the connection is closed/);
    await client.closed;
    expect(broker.topics.get('big')).toBeUndefined();
  });
});
