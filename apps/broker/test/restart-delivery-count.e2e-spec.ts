import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestConsumer, waitFor } from '@mmmq/test-support';
import { BrokerProcess, spawnBroker } from './broker-process.fixture';

const TOPIC = 'order.created';
const CONSUMER_ID = 'billing';
const BEFORE = 20;
const AFTER = 150;

async function publish(broker: BrokerProcess, from: number, count: number): Promise<void> {
  const messages = Array.from({ length: count }, (_, i) => ({ topic: TOPIC, content: { n: from + i } }));
  const response = await fetch(`${broker.url}/mmmq/messages/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages }),
  });
  expect(response.status).toBe(200);
}

/** The subscription's cursor as the broker reports it. */
async function position(broker: BrokerProcess): Promise<number | undefined> {
  const response = await fetch(`${broker.url}/mmmq/subscriptions`);
  const list = (await response.json()) as Array<{ consumerId: string; topic: string; position: number }>;
  return list.find((entry) => entry.consumerId === CONSUMER_ID && entry.topic === TOPIC)?.position;
}

// A clean restart (SIGTERM). After a SIGKILL up to DELIVERY_MARK_RESERVE messages never sent may still be flagged
// (docs/delivery.md, "The model").
describe.each([['stopped with SIGTERM', 'SIGTERM']] as const)('a broker %s and started again', (_, signal) => {
  let rootDir: string;
  const consumer = new TestConsumer();
  const brokers: BrokerProcess[] = [];

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-restart-count-'));
    await consumer.start();
  });
  afterAll(async () => {
    for (const broker of brokers) if (broker.child.exitCode === null && broker.child.signalCode === null) broker.child.kill('SIGKILL');
    await Promise.all(brokers.map((broker) => broker.exited));
    await consumer.stop();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('delivers the messages it never sent with deliveryCount 1, not flagged as redelivered', async () => {
    const dispatchers = [{ consumerId: CONSUMER_ID, host: consumer.url, pattern: TOPIC, batchSize: 10 }];
    await writeFile(join(rootDir, 'dispatchers.json'), JSON.stringify(dispatchers));
    const env = { MMMQ_ROOT_DIR: rootDir };

    const first = await spawnBroker(env);
    brokers.push(first);
    await publish(first, 0, BEFORE);
    await consumer.waitFor(() => consumer.received.length >= BEFORE, { message: `the first ${BEFORE} messages to arrive` });
    await waitFor(async () => (await position(first)) === BEFORE, { message: () => `the consumer's ACKs of all ${BEFORE} to settle` });
    first.child.kill(signal);
    await first.exited;
    const sentBefore = new Set(consumer.received.map(({ body }) => body.offset));

    const second = await spawnBroker(env);
    brokers.push(second);
    await publish(second, BEFORE, AFTER);
    await consumer.waitFor(() => new Set(consumer.received.map(({ body }) => body.offset)).size === BEFORE + AFTER, {
      message: `all ${BEFORE + AFTER} messages to arrive`,
    });

    // Offsets the first broker never sent, whether published before or after the restart.
    const neverSent = consumer.received.filter(({ body }) => !sentBefore.has(body.offset));
    expect(neverSent.length).toBeGreaterThanOrEqual(AFTER);
    const flagged = neverSent.filter(({ body }) => body.redelivered || body.deliveryCount !== 1).map(({ body }) => body.offset);
    expect(flagged).toEqual([]);
    second.child.kill('SIGTERM');
    await second.exited;
  }, 120_000);
});
