import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrokerProcess, spawnBroker } from './broker-process.fixture';
import { requirePython, runPython, succeeds } from './python-example.fixture';

const PUBLISHER_TOKEN = 'python-publisher-0123456789';
const CONSUMER_TOKEN = 'python-consumer-0123456789';
const TOKENS = JSON.stringify([
  { token: PUBLISHER_TOKEN, roles: ['publish'], name: 'python-producer' },
  { token: CONSUMER_TOKEN, roles: ['consume'], name: 'python-consumer' },
]);
const TOPIC = 'order.created';
/** Contents a parse-and-serialise round trip would change, in the broker or in a client: they must arrive as sent. */
const CONTENTS = [
  '{"orderId": 1, "note" : "spaces kept"}',
  '"\\u00fc escaped, \u00fc literal"',
  '12345678901234567890123',
  '1.0',
  '{"b":1,"a":2,"b":3}',
  'null',
  '[ ]',
  '{"nested":{"deep":[1,[2,[3]]]}}',
  '"line\\nbreak \\"quoted\\""',
  'true',
  '-0.5e-3',
  '"\u2713 \u{1F389}"',
];
const IDS = CONTENTS.map((_, i) => `python-${i}`);
/** The line a consumer writes for message `i` (also its offset: the topic is new), delivered `deliveryCount` times. */
const line = (i: number, deliveryCount = 1) =>
  `{"id":"${IDS[i]}","topic":"${TOPIC}","offset":${i},"deliveryCount":${deliveryCount},"content":${CONTENTS[i]}}`;
const RUN_TIMEOUT_MS = 60_000;
const CONSUMER_ENV = { MMMQ_TOKEN: CONSUMER_TOKEN };
const ALL = ['--exit-after', `${CONTENTS.length}`];
const offsetOf = (line: string) => (JSON.parse(line) as { offset: number }).offset;

describe('the Python producer and consumer of docs/http-api.md, against the standalone broker', () => {
  let rootDir: string;
  let broker: BrokerProcess;
  /** The push consumer of the first push test: its address, and what it wrote to stderr. */
  let pushed: { url: string; stderr: string } | undefined;

  beforeAll(async () => {
    requirePython();
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-python-'));
    broker = await spawnBroker({ MMMQ_ROOT_DIR: join(rootDir, 'data'), MMMQ_AUTH_TOKENS: TOKENS });
  }, 120_000);

  afterAll(async () => {
    if (broker) {
      broker.child.kill('SIGTERM');
      await broker.exited;
    }
    await rm(rootDir, { recursive: true, force: true });
  });

  const consume = async (args: string[], what: string) => {
    const output = join(rootDir, `${what}.jsonl`);
    const run = runPython('mmmq_consumer.py', [...args, '--broker', broker.url, '--output', output], CONSUMER_ENV);
    await succeeds(run, `the ${what} consumer`, RUN_TIMEOUT_MS);
    return { run, lines: (await readFile(output, 'utf8')).split('\n').filter((l) => l !== '') };
  };

  it('publishes one by one and as a batch, with the given ids, and prints each ACK with its offset', async () => {
    const half = CONTENTS.length / 2;
    const ids = (from: number, to?: number) => IDS.slice(from, to).flatMap((id) => ['--id', id]);
    // `--` ends the options, so that a content such as -0.5e-3 is not taken for one.
    const single = [...ids(0, half), '--', ...CONTENTS.slice(0, half)];
    const batch = ['--batch', ...ids(half), '--', ...CONTENTS.slice(half)];
    const acks: string[] = [];
    for (const args of [single, batch]) {
      const options = ['--broker', broker.url, '--topic', TOPIC];
      const run = runPython('mmmq_producer.py', [...options, ...args], { MMMQ_TOKEN: PUBLISHER_TOKEN });
      await succeeds(run, 'the producer', RUN_TIMEOUT_MS);
      expect(run.stderr()).toBe('');
      acks.push(
        ...run
          .stdout()
          .split('\n')
          .filter((l) => l !== ''),
      );
    }
    expect(acks).toEqual(IDS.map((id, offset) => `ACK ${id} ${TOPIC} ${offset}`));
  }, 120_000);

  it('a push consumer gets every message in order, byte for byte, and a NACKed one again', async () => {
    const { run, lines } = await consume(
      ['push', '--consumer-id', 'python-push', '--pattern', 'order.*', ...ALL, '--fail-once', IDS[3]],
      'push',
    );
    expect(lines).toEqual(CONTENTS.map((_, i) => line(i, i === 3 ? 2 : 1)));
    pushed = { url: /^listening on (\S+)$/m.exec(run.stderr())![1], stderr: run.stderr() };
  }, 120_000);

  it('a push consumer asking for batches gets every message through /mmmq/messages/batch', async () => {
    const { lines } = await consume(
      ['push', '--consumer-id', 'python-push-batch', '--pattern', TOPIC, '--batch-size', '5', ...ALL],
      'push-batch',
    );
    expect(lines).toEqual(CONTENTS.map((_, i) => line(i)));
  }, 120_000);

  it('a push consumer removes its host from the dispatcher when it stops', async () => {
    expect(pushed).toBeDefined();
    expect(pushed!.stderr).toBe(`listening on ${pushed!.url}\n`);
    const response = await fetch(`${broker.url}/mmmq/dispatchers/python-push`, {
      headers: { authorization: `Bearer ${CONSUMER_TOKEN}` },
    });
    expect(response.status).toBe(200);
    // Its only host left: the consumer id stays (with its position), with no push member — shown without host(s).
    const dispatcher = (await response.json()) as { host?: unknown; hosts?: unknown };
    expect(dispatcher.host).toBeUndefined();
    expect(dispatcher.hosts).toBeUndefined();
  });

  it('a pull consumer fetches every message, acks them by lease, and gets a NACKed one again', async () => {
    const { run, lines } = await consume(
      [
        'pull',
        '--consumer-id',
        'python-pull',
        '--pattern',
        'order.*',
        '--batch-size',
        '4',
        '--wait-ms',
        '1000',
        ...ALL,
        '--fail-once',
        IDS[5],
      ],
      'pull',
    );
    expect(run.stderr()).toBe('');
    // Pull makes no promise of order (a NACKed message comes back after later ones), so compare by offset.
    const sorted = [...lines].sort((a, b) => offsetOf(a) - offsetOf(b));
    expect(sorted).toEqual(CONTENTS.map((_, i) => line(i, i === 5 ? 2 : 1)));
  }, 120_000);
});
