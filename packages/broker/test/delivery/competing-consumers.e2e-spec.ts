import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { FAST_BACKOFF, range } from './delivery.fixture';
import { Fetched, PullClient, waitUntil } from './pull.fixture';

/** Publishes `count` messages to `topic` in batches of up to 1,000, with headers made by `headers(n)`. */
async function publishMany(broker: BrokerApp, topic: string, count: number, headers: (n: number) => object = () => ({})) {
  for (let from = 0; from < count; from += 1000) {
    const messages = range(Math.min(1000, count - from), from).map((n) => ({ topic, content: { n }, headers: headers(n) }));
    const response = await broker.post('/mmmq/messages/batch', JSON.stringify({ messages }));
    if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
}

async function register(broker: BrokerApp, body: object): Promise<void> {
  const response = await broker.request('POST', '/mmmq/dispatchers', body);
  if (response.status !== 201 && response.status !== 200) throw new Error(`register: ${response.status} ${JSON.stringify(response.body)}`);
}

async function subscription(broker: BrokerApp, consumerId: string) {
  const { body } = await broker.request('GET', '/mmmq/subscriptions');
  return body.find((row: { consumerId: string }) => row.consumerId === consumerId);
}

/** Fetches and acks until `stop()` says so; every settled lease is kept. */
function pullLoop(puller: PullClient, member: string, handle: (message: Fetched) => Promise<void> = async () => undefined) {
  const settled: Fetched[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const messages = await puller.fetch({ max: 5, waitMs: 200, member });
      for (const message of messages) await handle(message);
      if (messages.length === 0) continue;
      const { lost } = await puller.ack(messages.map((message) => message.lease));
      settled.push(...messages.filter((message) => !lost.includes(message.lease)));
    }
  })();
  return {
    settled,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

describe('competing consumers on one consumer id', () => {
  let broker: BrokerApp;
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0)) await step();
    await broker.close();
  });

  it('shares the messages among push hosts and a pull client; a host killed mid-batch loses only its leases, redelivered to the others', async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    const steady = new TestConsumer();
    const doomed = new TestConsumer();
    await steady.start();
    await doomed.start();
    cleanup.push(
      () => steady.stop(),
      () => doomed.stop(),
    );
    // The doomed host answers its first two pushes, then hangs on the third and dies with it unanswered.
    const doomedAcked: number[] = [];
    doomed.reply = (delivery) => {
      if (doomed.requests > 2) return 'hang';
      doomedAcked.push(delivery.body.offset);
      return 'ACK';
    };
    for (const consumer of [steady, doomed])
      await register(broker, { consumerId: 'work', host: consumer.url, pattern: 'order.*', batchSize: 5 });
    await new PullClient(broker, 'work').register({ batchSize: 5 });
    const puller = pullLoop(new PullClient(broker, 'work'), 'puller', () => new Promise((resolve) => setTimeout(resolve, 2)));
    cleanup.unshift(() => puller.stop());

    await publishMany(broker, 'order.created', 300);
    await doomed.waitFor(() => doomed.requests > 2);
    const unanswered = doomed.received.map((delivery) => delivery.body.offset).filter((offset) => !doomedAcked.includes(offset));
    expect(unanswered.length).toBeGreaterThan(0);
    await doomed.stop();
    await waitUntil(async () => (await subscription(broker, 'work'))?.position === 300, 'every message settled', 30_000);
    await puller.stop();

    const row = await subscription(broker, 'work');
    expect(row.stats).toMatchObject({ delivered: 300, deadLettered: 0, nacked: 0 });
    const ackedBy = {
      steady: steady.received.map((delivery) => delivery.body.offset),
      doomed: doomedAcked,
      puller: puller.settled.map((message) => message.offset),
    };
    const all = [...ackedBy.steady, ...ackedBy.doomed, ...ackedBy.puller].sort((a, b) => a - b);
    expect(all).toEqual(range(300));
    for (const share of Object.values(ackedBy)) expect(share.length).toBeGreaterThan(0);
    // What the dead host held went to the others, marked redelivered.
    const redelivered = [...steady.received.map((delivery) => delivery.body), ...puller.settled].filter((message) =>
      unanswered.includes(message.offset),
    );
    expect(redelivered.map((message) => message.offset).sort((a, b) => a - b)).toEqual([...unanswered].sort((a, b) => a - b));
    for (const message of redelivered) expect(message).toMatchObject({ redelivered: true, deliveryCount: 2 });
  }, 60_000);

  it('never has two messages with the same ordering key in flight, and hands each key out in offset order', async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    const inFlight = new Set<string>();
    const seen = new Map<string, number[]>();
    const violations: string[] = [];
    const begin = (key: string, offset: number) => {
      if (inFlight.has(key)) violations.push(`${key} twice in flight (offset ${offset})`);
      inFlight.add(key);
      seen.set(key, [...(seen.get(key) ?? []), offset]);
    };
    const servers = await Promise.all(
      [0, 1].map(async () => {
        const server = http.createServer((request, response) => {
          const chunks: Buffer[] = [];
          request.on('data', (chunk: Buffer) => chunks.push(chunk));
          request.on('end', () => {
            const message = JSON.parse(Buffer.concat(chunks).toString());
            const key = String(message.headers['mmmq-ordering-key']);
            begin(key, message.offset);
            setTimeout(
              () => {
                inFlight.delete(key);
                response.writeHead(200, { 'content-type': 'application/json' }).end('{"acknowledgement":"ACK"}');
              },
              1 + (message.offset % 4),
            );
          });
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        return server;
      }),
    );
    for (const server of servers) {
      await register(broker, {
        consumerId: 'keyed',
        host: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        pattern: 'order.*',
      });
    }
    cleanup.push(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));
    const puller = pullLoop(new PullClient(broker, 'keyed'), 'puller', async (message) => {
      const key = String(message.headers['mmmq-ordering-key']);
      begin(key, message.offset);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight.delete(key);
    });
    await publishMany(broker, 'order.created', 200, (n) => ({ 'mmmq-ordering-key': `customer-${n % 5}` }));
    await waitUntil(async () => (await subscription(broker, 'keyed'))?.position === 200, 'every message settled', 30_000);
    await puller.stop();

    expect(violations).toEqual([]);
    for (const [key, offsets] of seen) expect([key, offsets]).toEqual([key, [...offsets].sort((a, b) => a - b)]);
    expect([...seen.values()].flat().sort((a, b) => a - b)).toEqual(range(200));
  }, 60_000);

  it('after a crash with 10,000 messages half settled out of order, redelivers exactly the unsettled ones, with their counts', async () => {
    const rootDir = mkdtempSync(join(tmpdir(), 'mmmq-restart-'));
    const copy = mkdtempSync(join(tmpdir(), 'mmmq-restart-copy-'));
    try {
      broker = await startBroker({ persistence: { rootDir } });
      const puller = new PullClient(broker, 'halves');
      await puller.register();
      await publishMany(broker, 'order.created', 10_000);
      await waitUntil(async () => (await subscription(broker, 'halves')) !== undefined, 'the subscription');
      const fetched: Fetched[] = [];
      while (fetched.length < 10_000) fetched.push(...(await puller.fetch({ max: 1000, waitMs: 1000, ackTimeoutMs: 600_000 })));
      // Odd offsets are acknowledged, in a scattered order; the first ten even ones are NACKed and delivered again.
      const odd = fetched.filter((message) => message.offset % 2 === 1);
      const scattered = [...odd].sort((a, b) => ((a.offset * 7919) % 10_007) - ((b.offset * 7919) % 10_007));
      for (let i = 0; i < scattered.length; i += 500) {
        expect((await puller.ack(scattered.slice(i, i + 500).map((message) => message.lease))).lost).toEqual([]);
      }
      await puller.nack(
        fetched
          .slice(0, 20)
          .filter((message) => message.offset % 2 === 0)
          .map((message) => message.lease),
      );
      const again = await puller.fetch({ max: 10, ackTimeoutMs: 600_000 });
      expect(again.map((message) => [message.offset, message.deliveryCount])).toEqual(range(10).map((i) => [2 * i, 2]));
      // A NACK is answered once durable, with the counts of the deliveries before it (delivery 2, then a restart: 3).
      expect(
        (
          await puller.nack(
            again.map((message) => message.lease),
            3_600_000,
          )
        ).lost,
      ).toEqual([]);
      // A SIGKILL: the files as they are now, without shutdown.
      cpSync(rootDir, copy, { recursive: true });
      await broker.close();

      broker = await startBroker({ persistence: { rootDir: copy } });
      const after = new PullClient(broker, 'halves');
      await waitUntil(async () => (await subscription(broker, 'halves')) !== undefined, 'the subscription after the restart');
      const redelivered: Fetched[] = [];
      for (;;) {
        const batch = await after.fetch({ max: 1000, waitMs: 500, ackTimeoutMs: 600_000 });
        if (batch.length === 0) break;
        redelivered.push(...batch);
      }
      expect(redelivered.map((message) => message.offset)).toEqual(range(5000).map((i) => 2 * i));
      for (const message of redelivered) {
        expect([message.offset, message.redelivered, message.deliveryCount]).toEqual([message.offset, true, message.offset < 20 ? 3 : 2]);
      }
    } finally {
      rmSync(rootDir, { recursive: true, force: true });
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});
