import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@mmmq/test-support';
import { spawnBroker } from './broker-process.fixture';
import { requirePython, runPython, stderrMatches, succeeds } from './python-example.fixture';

const RUN_TIMEOUT_MS = 60_000;

interface Received {
  body: string;
  at: number;
}

/** A stand-in broker that answers the requests it gets with `answers`, in turn, and records them. */
async function scriptedBroker(answers: { status: number; headers?: Record<string, string>; body: string }[]) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ body, at: Date.now() });
      const answer = answers[Math.min(received.length, answers.length) - 1];
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const ACK = '{"acknowledgement":"ACK","id":"order-7","topic":"orders","offset":7}';
const PUBLISH = ['--topic', 'orders', '--id', 'order-7', '{"n": 7}'];

describe('the Python producer of docs/http-api.md retries what may succeed later, with the same id', () => {
  beforeAll(() => requirePython());

  it.each([429, 503])('waits Retry-After after a %d and sends the same bytes again', async (status) => {
    const broker = await scriptedBroker([
      { status, headers: { 'retry-after': '1' }, body: '{"acknowledgement":"NACK","message":"busy"}' },
      { status: 200, body: ACK },
    ]);
    try {
      const run = runPython('mmmq_producer.py', ['--broker', broker.url, ...PUBLISH]);
      await succeeds(run, 'the producer', RUN_TIMEOUT_MS);
      expect(run.stdout()).toBe('ACK order-7 orders 7\n');
      expect(run.stderr()).toMatch(new RegExp(`^retrying in 1\\.0 s: ${status} `));
      const [first, second] = broker.received;
      expect(broker.received).toHaveLength(2);
      expect(second.body).toBe(first.body);
      expect(JSON.parse(first.body)).toEqual({ topic: 'orders', id: 'order-7', content: { n: 7 } });
      expect(second.at - first.at).toBeGreaterThanOrEqual(950);
    } finally {
      await broker.close();
    }
  });

  it('gives up at once on a refusal that retrying cannot fix, and says why', async () => {
    const refusal = '{"acknowledgement":"NACK","message":"invalid topic"}';
    const broker = await scriptedBroker([{ status: 400, body: refusal }]);
    try {
      const run = runPython('mmmq_producer.py', ['--broker', broker.url, ...PUBLISH]);
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toBe(`publish failed: 400 ${refusal}\n`);
      expect(broker.received).toHaveLength(1);
    } finally {
      await broker.close();
    }
  });

  it('keeps retrying a refused connection until the broker is up, then prints the ACK', async () => {
    const rootDir = await mkdtemp(join(tmpdir(), 'mmmq-python-late-'));
    // Free now, and nothing listens on it until the broker starts (a fixed port collides with parallel runs).
    const latePort = await freePort();
    const run = runPython('mmmq_producer.py', ['--broker', `http://127.0.0.1:${latePort}`, ...PUBLISH]);
    try {
      await stderrMatches(run, /retrying in [\d.]+ s: .*Connection refused/, RUN_TIMEOUT_MS);
      const broker = await spawnBroker({ MMMQ_ROOT_DIR: rootDir, MMMQ_PORT: String(latePort) });
      try {
        await succeeds(run, 'the producer', RUN_TIMEOUT_MS);
        expect(run.stdout()).toBe('ACK order-7 orders 0\n');
      } finally {
        broker.child.kill('SIGTERM');
        await broker.exited;
      }
    } finally {
      run.child.kill('SIGKILL');
      await rm(rootDir, { recursive: true, force: true });
    }
  }, 120_000);
});
