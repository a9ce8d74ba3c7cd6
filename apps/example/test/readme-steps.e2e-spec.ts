import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BrokerProcess, spawnBroker } from '../../broker/test/broker-process.fixture';
import { freePort } from '@mmmq/test-support';
import { spawnExample } from './example-process.fixture';

/** The README's `curl`, so that this test follows the README as written. */
function readmePublishBody(): string {
  const readme = readFileSync(resolve(__dirname, '../../../README.md'), 'utf8');
  const body = /curl -s -X POST localhost:8080\/mmmq\/messages .*\\\n\s*-d '([^']+)'/.exec(readme)?.[1];
  if (body === undefined) throw new Error("README.md no longer shows the publishing curl this test follows (curl … -d '…')");
  return body;
}

async function publish(broker: BrokerProcess, body: string): Promise<void> {
  const response = await fetch(`${broker.url}/mmmq/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(response.status).toBe(200);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe("the README's steps: broker, its curl, then the example, against real processes", () => {
  let rootDir: string;
  let broker: BrokerProcess;

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-readme-'));
    broker = await spawnBroker({ MMMQ_ROOT_DIR: rootDir, MMMQ_STREAM_PORT: 'off' });
  }, 60_000);

  afterAll(async () => {
    broker?.child.kill('SIGTERM');
    await broker?.exited;
    await rm(rootDir, { recursive: true, force: true });
  });

  it('invoices and refunds on a data directory that already holds other messages, on every run, and exits 0', async () => {
    const readmeBody = readmePublishBody();
    const readmeOrder = (JSON.parse(readmeBody) as { content: { orderId: string } }).content.orderId;
    await publish(broker, readmeBody);
    // What the README's curl used to publish: not an order, so billing refuses it and the broker dead-letters it.
    await publish(broker, '{"topic":"order.created","content":{"orderId":42}}');
    const port = String(await freePort());

    for (const [run, signal] of [
      [1, 'SIGINT'],
      [2, 'SIGTERM'],
    ] as const) {
      const example = spawnExample({ MMMQ_BROKER: broker.url, EXAMPLE_PORT: port });
      try {
        const placed = await example.waitFor(
          /Order (\w+) placed: keyboard[\s\S]*Order (\w+) placed: monitor/,
          `run ${run}: both demo orders placed`,
        );
        const [, keyboard, monitor] = placed;
        await example.waitFor(new RegExp(`Invoice for order ${keyboard}: 49\\.90 \\(keyboard`), `run ${run}: the keyboard's invoice`);
        await example.waitFor(new RegExp(`Invoice for order ${monitor}: 189\\.00 \\(monitor`), `run ${run}: the monitor's invoice`);
        await example.waitFor(
          new RegExp(`Refund for order ${keyboard}: 49\\.90 \\(changed my mind\\)`),
          `run ${run}: the keyboard's refund`,
        );
        if (run === 1) {
          await example.waitFor(
            new RegExp(`Invoice for order ${escape(readmeOrder)}: 12\\.50 \\(book, delivery 1\\)`),
            "the README curl's invoice",
          );
          await example.waitFor(/refused message .* from order\.created; the broker dead-letters it/, 'the refusal of the invalid event');
        }

        example.child.kill(signal);
        expect(await example.exited).toEqual({ code: 0, signal: null });
        const output = example.output();
        expect(output).not.toMatch(/\bERROR\b/);
        // Acknowledged on the first run, never delivered again.
        if (run === 2) expect(output).not.toMatch(new RegExp(`Invoice for order ${escape(readmeOrder)}:`));
      } finally {
        // A failed step leaves it running; it would outlive the test.
        if (example.child.exitCode === null && example.child.signalCode === null) example.child.kill('SIGKILL');
      }
    }
  }, 120_000);
});
