import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrokerProcess, spawnBroker } from './broker-process.fixture';

/** Long enough that only the shutdown can end the fetch within the test. */
const FETCH_WAIT_MS = 60_000;

/** One HTTP/1.1 exchange over a raw socket, so a request can be left half-sent; resolves with all the server wrote. */
function rawExchange(url: string, head: string, body: string): { sent: Promise<void>; answer: Promise<string> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const sent = new Promise<void>((resolve) => socket.once('connect', () => socket.write(head + body, () => resolve())));
  const answer = new Promise<string>((resolve, reject) => {
    socket.once('error', (error) => reject(new Error(`${head.split('\r\n')[0]}: ${error.message} after ${JSON.stringify(received)}`)));
    socket.once('close', () => resolve(received));
  });
  return { sent, answer };
}

function post(path: string, body: string, declaredLength = Buffer.byteLength(body)): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declaredLength}\r\n\r\n`;
}

describe('a shutdown answers every request, then the broker exits 0', () => {
  let rootDir: string;
  let broker: BrokerProcess | undefined;

  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-shutdown-'));
  });

  afterEach(async () => {
    if (broker && broker.child.exitCode === null && broker.child.signalCode === null) broker.child.kill('SIGKILL');
    await rm(rootDir, { recursive: true, force: true });
  });

  it.each([
    ['SIGTERM', 'fastify'],
    ['SIGINT', 'express'],
  ] as const)(
    '%s on %s: a half-sent publish and a waiting fetch are answered 503 / empty with Connection: close, and the exit code is 0',
    async (signal, adapter) => {
      broker = await spawnBroker({ MMMQ_ROOT_DIR: rootDir, MMMQ_STREAM_PORT: 'off', MMMQ_HTTP_ADAPTER: adapter });
      const registered = await fetch(`${broker.url}/mmmq/dispatchers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"consumerId":"billing","pattern":"order.*"}',
      });
      expect(registered.status).toBe(201);

      // Promises 100 bytes, sends 13 and stalls: nothing of it can be stored.
      const halfSent = rawExchange(broker.url, post('/mmmq/messages', '', 100), '{"topic":"or');
      const fetchBody = JSON.stringify({ max: 1, waitMs: FETCH_WAIT_MS });
      const waitingFetch = rawExchange(broker.url, post('/mmmq/consumers/billing/fetch', fetchBody), fetchBody);
      await Promise.all([halfSent.sent, waitingFetch.sent]);
      // A request sent after both, on a new connection, and answered: the broker has read theirs by then (one thread,
      // connections accepted and read in arrival order). Not on fetch's kept-alive connection from the registration:
      // the broker may read that one before it accepts the new ones, and under load the fetch would come after the signal.
      const barrier = rawExchange(broker.url, 'GET /mmmq/dispatchers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', '');
      expect(await barrier.answer).toMatch(/^HTTP\/1\.1 200 /);
      const started = Date.now();
      broker.child.kill(signal);

      const publishAnswer = await halfSent.answer;
      expect(publishAnswer).toMatch(/^HTTP\/1\.1 503 /);
      expect(publishAnswer).toMatch(/\r\nConnection: close\r\n/i);
      expect(publishAnswer).toMatch(/\r\nRetry-After: 1\r\n/i);
      expect(JSON.parse(publishAnswer.slice(publishAnswer.indexOf('\r\n\r\n') + 4))).toEqual({
        acknowledgement: 'NACK',
        message: expect.stringMatching(/shutting down/),
      });
      const fetchAnswer = await waitingFetch.answer;
      expect(fetchAnswer).toMatch(/^HTTP\/1\.1 200 /);
      expect(fetchAnswer).toMatch(/\r\nConnection: close\r\n/i);
      expect(fetchAnswer).toMatch(/\{"messages":\[\]\}$/);

      expect(await broker.exited).toEqual({ code: 0, signal: null });
      expect(Date.now() - started).toBeLessThan(FETCH_WAIT_MS / 2);
      expect(broker.output()).toMatch(/All topic queues closed/);
      expect(broker.output()).not.toMatch(/\b(ERROR|WARN)\b/);
    },
    60_000,
  );
});
