import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BrokerProcess, freePort, makeTempDir, removeTempDir, spawnBroker, waitFor } from '@mmmq/test-support';
import { TEST_DATABASE_URL, testSchema, TestSchema } from './exactly-once-app.fixture';
import { spawnExactlyOnce } from './example-process.fixture';

/** The bodies of the README's `curl -s -X POST localhost:3000/orders …` commands, so this test follows the README. */
function readmeOrderBodies(): Array<{ item: string; amount: number }> {
  const readme = readFileSync(resolve(__dirname, '../README.md'), 'utf8');
  const bodies = [...readme.matchAll(/curl -s -X POST localhost:3000\/orders -H 'content-type: application\/json' -d '([^']+)'/g)];
  if (bodies.length < 2) throw new Error('apps/exactly-once/README.md no longer shows the two order curls this test follows');
  return bodies.map((match) => JSON.parse(match[1]) as { item: string; amount: number });
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe("the exactly-once README's steps: the built broker and the built example as processes", () => {
  let rootDir: string;
  let broker: BrokerProcess;
  let schema: TestSchema;

  beforeAll(async () => {
    rootDir = await makeTempDir('mmmq-exactly-once-readme-');
    broker = await spawnBroker({ MMMQ_ROOT_DIR: rootDir, MMMQ_STREAM_PORT: 'off' });
    schema = testSchema();
  }, 60_000);
  afterAll(async () => {
    broker?.child.kill('SIGTERM');
    await broker?.exited;
    await removeTempDir(rootDir);
    await schema?.drop();
  });

  it('charges the order once although BILLING_LOSE_FIRST_ACK=1 made the broker deliver it twice, refuses the large one, and exits 0', async () => {
    const [order, tooLarge] = readmeOrderBodies();
    const port = await freePort();
    const example = spawnExactlyOnce({
      MMMQ_BROKER: broker.url,
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema.name,
      EXAMPLE_PORT: String(port),
      BILLING_LOSE_FIRST_ACK: '1',
    });
    const api = `http://127.0.0.1:${port}`;
    const post = (body: unknown) =>
      fetch(`${api}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    try {
      await example.waitFor(/Pulling billing\.order-placed/, "billing's pull listener to start");
      const placed = await post(order);
      expect(placed.status).toBe(201);
      const { orderId, messageId } = (await placed.json()) as { orderId: string; messageId: string };

      await example.waitFor(new RegExp(`Charged order ${orderId}: 49\\.90 \\(message ${escape(messageId)}, delivery 1\\)`), 'the charge');
      await example.waitFor(new RegExp(`acknowledgement is lost on purpose`), 'the lost acknowledgement');
      await example.waitFor(
        new RegExp(
          `processed message ${escape(messageId)} from order\\.placed already \\(inbox\\); acknowledged without running the handler \\(attempt 2\\)`,
        ),
        'the second delivery, caught by the inbox',
      );
      expect(await (await fetch(`${api}/charges`)).json()).toEqual([expect.objectContaining({ orderId, messageId, deliveryCount: 1 })]);
      await waitFor(async () => ((await (await fetch(`${api}/orders/${orderId}`)).json()) as any).event?.status === 'PUBLISHED', {
        message: 'GET /orders/:id to show the outbox row PUBLISHED',
      });

      const refused = await post(tooLarge);
      expect(refused.status).toBe(422);
      expect(await schema.rows('orders', 'item = $1', [tooLarge.item])).toEqual([]);

      example.child.kill('SIGTERM');
      expect(await example.exited).toEqual({ code: 0, signal: null });
      expect(example.output()).not.toMatch(/\bERROR\b/);
      expect(example.output().match(/Charged order/g)).toHaveLength(1);
    } finally {
      // A failed step leaves it running; it would outlive the test.
      if (example.child.exitCode === null && example.child.signalCode === null) example.child.kill('SIGKILL');
    }
  }, 120_000);
});
