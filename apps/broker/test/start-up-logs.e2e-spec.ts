import { InvalidBrokerOptionsError } from '@mmmq/broker';
import { readLogLevel } from '@mmmq/cli';
import { useTempDir } from '@mmmq/test-support';
import { BrokerProcess, spawnBroker } from './broker-process.fixture';

/** What a user reads before the broker says where it listens: a screenful at most. */
const MAX_START_UP_LINES = 10;

/** The lines the broker logged up to and including `Listening on …`. */
function startUpLines(broker: BrokerProcess): string[] {
  const lines = broker.output().split('\n');
  return lines.slice(0, lines.findIndex((line) => line.includes('Listening on')) + 1);
}

describe("the standalone broker's start-up logs", () => {
  const dataDir = useTempDir('mmmq-start-up-logs-');
  let broker: BrokerProcess | undefined;

  afterEach(async () => {
    broker?.child.kill('SIGTERM');
    await broker?.exited;
    broker = undefined;
  });

  it(`are at most ${MAX_START_UP_LINES} lines at the default level: Nest's module and route map is debug`, async () => {
    broker = await spawnBroker({ MMMQ_ROOT_DIR: dataDir() });

    const lines = startUpLines(broker);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(MAX_START_UP_LINES);
    expect(broker.output()).not.toMatch(/InstanceLoader|RoutesResolver|RouterExplorer/);
    expect(broker.output()).toMatch(/Restored 0 topics/);
  });

  it('MMMQ_LOG_LEVEL=debug shows the map, at DEBUG', async () => {
    broker = await spawnBroker({ MMMQ_ROOT_DIR: dataDir(), MMMQ_LOG_LEVEL: 'debug' });

    expect(broker.output()).toMatch(/DEBUG \[RouterExplorer\] Mapped \{\/mmmq\/messages, POST\} route/);
    expect(broker.output()).toMatch(/DEBUG \[InstanceLoader\] MmmqBrokerModule dependencies initialized/);
  });

  it('MMMQ_LOG_LEVEL is a level and every more severe one; any other value is refused, naming the variable', () => {
    expect(readLogLevel({})).toBe('log');
    expect(readLogLevel({ MMMQ_LOG_LEVEL: 'verbose' })).toBe('verbose');
    expect(() => readLogLevel({ MMMQ_LOG_LEVEL: 'info' })).toThrow(InvalidBrokerOptionsError);
    expect(() => readLogLevel({ MMMQ_LOG_LEVEL: 'info' })).toThrow('MMMQ_LOG_LEVEL must be error, warn, log, debug, verbose, got "info"');
  });
});
