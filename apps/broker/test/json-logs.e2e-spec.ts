import { InvalidBrokerOptionsError } from '@mmmq/broker';
import { BrokerProcess, spawnBroker } from './broker-process.fixture';
import { readLogFormat } from '@mmmq/cli';

describe('MMMQ_LOG_FORMAT', () => {
  let broker: BrokerProcess | undefined;

  afterEach(async () => {
    broker?.child.kill('SIGTERM');
    await broker?.exited;
    broker = undefined;
  });

  it('json: every line the broker writes is one JSON object with level, timestamp, context and message', async () => {
    broker = await spawnBroker({ MMMQ_LOG_FORMAT: 'json' });
    broker.child.kill('SIGTERM');
    expect((await broker.exited).code).toBe(0);
    const lines = broker.output().trimEnd().split('\n');
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const record of records) {
      expect(record).toEqual(
        expect.objectContaining({ level: expect.any(String), timestamp: expect.any(Number), message: expect.any(String) }),
      );
    }
    expect(records).toContainEqual(
      expect.objectContaining({ level: 'log', context: 'MmmqBroker', message: expect.stringMatching(/^Listening on http:\/\//) }),
    );
    expect(records).toContainEqual(expect.objectContaining({ context: 'TopicQueueContainer', message: 'All topic queues closed' }));
  });

  it('text (the default): Nest console lines', async () => {
    broker = await spawnBroker({});
    expect(broker.output()).toMatch(/\bLOG \[MmmqBroker\] Listening on http:\/\//);
    expect(broker.output().split('\n')[0]).not.toMatch(/^\{/);
  });

  it('refuses any other value, naming the variable', () => {
    expect(readLogFormat({})).toBe('text');
    expect(readLogFormat({ MMMQ_LOG_FORMAT: 'json' })).toBe('json');
    expect(() => readLogFormat({ MMMQ_LOG_FORMAT: 'JSON' })).toThrow(InvalidBrokerOptionsError);
    expect(() => readLogFormat({ MMMQ_LOG_FORMAT: 'pretty' })).toThrow('MMMQ_LOG_FORMAT must be text or json, got "pretty"');
  });
});
