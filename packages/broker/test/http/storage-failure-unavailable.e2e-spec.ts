import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BrokerApp, startBroker } from './broker-app.fixture';

describe('a publish the storage cannot take is NACKed with 503 and Retry-After', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(() => broker.close());

  it('answers 503 when the topic directory cannot be created', async () => {
    // A plain file where the topic's directory belongs: a real I/O failure, not a simulated one.
    await mkdir(join(broker.rootDir, 'topics'), { recursive: true });
    await writeFile(join(broker.rootDir, 'topics', 'blocked'), 'not a directory');
    const response = await broker.post('/mmmq/messages', '{"topic":"blocked","content":1}');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.body).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(/blocked/) });
  });
});
