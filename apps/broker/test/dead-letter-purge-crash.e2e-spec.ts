import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestConsumer, waitFor } from '@mmmq/test-support';
import { BrokerProcess, spawnBroker } from './broker-process.fixture';

const DEAD_LETTERS = 20;

async function deadLetters(broker: BrokerProcess): Promise<{ total: number; startOffset: number; offsets: number[] }> {
  const body = (await (await fetch(`${broker.url}/mmmq/dead-letters/billing`)).json()) as {
    total: number;
    startOffset: number;
    deadLetters: Array<{ offset: number }>;
  };
  return { total: body.total, startOffset: body.startOffset, offsets: body.deadLetters.map((letter) => letter.offset) };
}

describe('a broker killed with SIGKILL right after answering a dead-letter purge', () => {
  let rootDir: string;
  const consumer = new TestConsumer();

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-purge-crash-'));
    await consumer.start();
    consumer.reply = () => 'REJECT';
  });
  afterAll(async () => {
    await consumer.stop();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('restarts with the purged dead letters gone: not listed, not redriven', async () => {
    const dispatchers = [{ consumerId: 'billing', host: consumer.url, pattern: 'order.*', maxDeliveries: 1 }];
    await writeFile(join(rootDir, 'dispatchers.json'), JSON.stringify(dispatchers));
    const env = { MMMQ_ROOT_DIR: rootDir };

    const first = await spawnBroker(env);
    const messages = Array.from({ length: DEAD_LETTERS }, (_, n) => ({ topic: 'order.created', content: { n } }));
    const published = await fetch(`${first.url}/mmmq/messages/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages }),
    });
    expect(published.status).toBe(200);
    await waitFor(async () => (await deadLetters(first)).total === DEAD_LETTERS, { message: 'every message dead-lettered' });

    const purged = await fetch(`${first.url}/mmmq/dead-letters/billing/purge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ before: 15 }),
    });
    const answer = await purged.json();
    first.child.kill('SIGKILL');
    await first.exited;
    expect(purged.status).toBe(200);
    expect(answer).toEqual({ consumerId: 'billing', purged: 15, startOffset: 15 });

    const second = await spawnBroker(env);
    try {
      expect(await deadLetters(second)).toEqual({ total: DEAD_LETTERS, startOffset: 15, offsets: [15, 16, 17, 18, 19] });
      consumer.reply = () => 'ACK';
      const before = consumer.received.length;
      const redrive = await fetch(`${second.url}/mmmq/dead-letters/billing/redrive`, { method: 'POST' });
      expect(await redrive.json()).toEqual({ redriven: 5 });
      await consumer.waitFor(() => consumer.received.length === before + 5);
      const redriven = consumer.received.slice(before).map((delivery) => (delivery.body.content as { n: number }).n);
      expect(redriven.sort((a, b) => a - b)).toEqual([15, 16, 17, 18, 19]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
