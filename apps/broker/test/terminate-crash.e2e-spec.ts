import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@mmmq/test-support';
import { BrokerProcess, spawnBroker } from './broker-process.fixture';

const MESSAGES = 20;
const CONSUMER = 'billing';

interface Fetched {
  offset: number;
  lease: string;
  deliveryCount: number;
}

async function post(broker: BrokerProcess, path: string, body: unknown): Promise<Response> {
  return fetch(`${broker.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function fetchAll(broker: BrokerProcess): Promise<Fetched[]> {
  const response = await post(broker, `/mmmq/consumers/${CONSUMER}/fetch`, { max: MESSAGES, waitMs: 0, ackTimeoutMs: 600_000 });
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: Fetched[] }).messages;
}

/** The original offsets of the consumer's dead letters, one entry per dead letter. */
async function deadLettered(broker: BrokerProcess): Promise<number[]> {
  const response = await fetch(`${broker.url}/mmmq/dead-letters/${CONSUMER}?limit=1000`);
  if (response.status === 404) return [];
  const body = (await response.json()) as { deadLetters: Array<{ headers: Record<string, unknown> }> };
  return body.deadLetters.map((letter) => Number(letter.headers['mmmq-dlq-original-offset'])).sort((a, b) => a - b);
}

/**
 * A pull `terminate` answered 200 is durable: the dead letter and the move past the message are one journal
 * record, written before the answer. Killed the moment the first 200 arrives (while the other terminates are on
 * their way), the broker restarts with every answered message dead-lettered once and never delivered again, and
 * no message both dead-lettered and delivered again; terminating again makes no second dead letter.
 */
describe('a broker killed with SIGKILL as a pull terminate is answered', () => {
  let rootDir: string;

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-terminate-crash-'));
  });
  afterAll(() => rm(rootDir, { recursive: true, force: true }));

  it('restarts with each message either dead-lettered and passed, or delivered again without a dead letter', async () => {
    await writeFile(join(rootDir, 'dispatchers.json'), JSON.stringify([{ consumerId: CONSUMER, pattern: 'order.*' }]));
    const env = { MMMQ_ROOT_DIR: rootDir };

    const first = await spawnBroker(env);
    const messages = Array.from({ length: MESSAGES }, (_, n) => ({ topic: 'order.created', content: { n } }));
    expect((await post(first, '/mmmq/messages/batch', { messages })).status).toBe(200);
    let leased: Fetched[] = [];
    await waitFor(async () => (leased = [...leased, ...(await fetchAll(first))]).length === MESSAGES, { message: 'every message leased' });

    const answered = new Set<number>();
    let killed = false;
    await Promise.all(
      leased.map(async ({ offset, lease }) => {
        const response = await post(first, `/mmmq/consumers/${CONSUMER}/terminate`, { leases: [lease], reason: 'poison' }).catch(
          () => undefined,
        );
        if (response?.status !== 200 || killed) return;
        answered.add(offset);
        // At once, on the answer's headers: whatever the broker still does in the background must not matter.
        killed = true;
        first.child.kill('SIGKILL');
      }),
    );
    await first.exited;
    expect(answered.size).toBeGreaterThan(0);

    const second = await spawnBroker(env);
    try {
      const letters = await deadLettered(second);
      const again = await fetchAll(second);
      const redelivered = again.map((message) => message.offset);
      // Each exactly once: dead-lettered, or delivered again — never both, never neither.
      expect([...letters, ...redelivered].sort((a, b) => a - b)).toEqual(Array.from({ length: MESSAGES }, (_, n) => n));
      for (const offset of answered) expect(letters).toContain(offset);
      expect(again.every((message) => message.deliveryCount === 2)).toBe(true);

      // A terminate of what is dead-lettered already names no lease: lost, and no second dead letter.
      const stale = leased.filter(({ offset }) => letters.includes(offset)).map(({ lease }) => lease);
      const repeated = await post(second, `/mmmq/consumers/${CONSUMER}/terminate`, { leases: stale });
      expect(repeated.status).toBe(200);
      expect(await repeated.json()).toEqual({ settled: 0, lost: stale });
      // What came back is dead-lettered now, once.
      if (again.length > 0) {
        const rest = await post(second, `/mmmq/consumers/${CONSUMER}/terminate`, { leases: again.map(({ lease }) => lease) });
        expect(await rest.json()).toEqual({ settled: again.length, lost: [] });
      }
      expect(await deadLettered(second)).toEqual(Array.from({ length: MESSAGES }, (_, n) => n));
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
