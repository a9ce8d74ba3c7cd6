import { BrokerApp, startBroker } from '@mmmq/test-support';
import { ExitCode } from '../src';
import { brokerUrlFromEnv } from '../src/broker-url-variable';
import { CapturedOutput, mmmq } from './cli-runner';

describe("mmmq's broker URL variable", () => {
  it('reads MMMQ_BROKER without a word, and an empty one as unset', () => {
    const stderr = new CapturedOutput();

    expect(brokerUrlFromEnv({ MMMQ_BROKER: 'http://broker:8080' }, stderr)).toBe('http://broker:8080');
    expect(brokerUrlFromEnv({ MMMQ_BROKER: '' }, stderr)).toBeUndefined();
    expect(brokerUrlFromEnv({}, stderr)).toBeUndefined();
    expect(stderr.text).toBe('');
  });

  it('still reads the deprecated MMMQ_BROKER_URL, with one warning naming MMMQ_BROKER', () => {
    const stderr = new CapturedOutput();

    expect(brokerUrlFromEnv({ MMMQ_BROKER_URL: 'http://old:8080' }, stderr)).toBe('http://old:8080');
    expect(stderr.text).toBe('mmmq: warning: MMMQ_BROKER_URL is deprecated; set MMMQ_BROKER instead\n');
  });

  it('prefers MMMQ_BROKER when both are set, and says the old one is ignored', () => {
    const stderr = new CapturedOutput();

    expect(brokerUrlFromEnv({ MMMQ_BROKER: 'http://new:8080', MMMQ_BROKER_URL: 'http://old:8080' }, stderr)).toBe('http://new:8080');
    expect(stderr.text).toBe('mmmq: warning: MMMQ_BROKER_URL is deprecated and ignored: MMMQ_BROKER is set\n');
  });

  describe('in a command', () => {
    let broker: BrokerApp;

    beforeAll(async () => {
      broker = await startBroker();
    });
    afterAll(() => broker.close());

    it('publishes to the broker of MMMQ_BROKER, and to that of MMMQ_BROKER_URL with exactly one deprecation line', async () => {
      const current = await mmmq(undefined, ['publish', 'variable.topic', '1'], { env: { MMMQ_BROKER: broker.url } });
      const deprecated = await mmmq(undefined, ['publish', 'variable.topic', '2'], { env: { MMMQ_BROKER_URL: broker.url } });

      expect(current).toMatchObject({ code: ExitCode.OK, stderr: '' });
      expect(current.stdout).toMatch(/ACK/);
      expect(deprecated.code).toBe(ExitCode.OK);
      expect(deprecated.stdout).toMatch(/ACK/);
      expect(deprecated.stderr.split('\n').filter(Boolean)).toEqual([
        'mmmq: warning: MMMQ_BROKER_URL is deprecated; set MMMQ_BROKER instead',
      ]);
    });
  });
});
