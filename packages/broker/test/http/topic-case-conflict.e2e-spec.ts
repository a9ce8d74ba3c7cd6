import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BrokerApp, startBroker } from './broker-app.fixture';

describe('a topic differing from an existing one only in case is refused with 409', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(() => broker.close());

  it('NACKs the second spelling and creates no directory for it', async () => {
    expect((await broker.post('/mmmq/messages', '{"topic":"Orders","content":1}')).status).toBe(200);
    const response = await broker.post('/mmmq/messages', '{"topic":"orders","content":1}');
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(/orders.*Orders/) });
    expect(await readdir(join(broker.rootDir, 'topics'))).toEqual(['Orders']);
  });
});
