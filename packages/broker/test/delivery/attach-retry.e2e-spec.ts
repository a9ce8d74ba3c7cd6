import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoggerService } from '@nestjs/common';
import { MmmqBrokerOptions } from '../../src';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer, waitFor } from '@mmmq/test-support';
import { addDispatcher, FAST_BACKOFF, publishAll } from './delivery.fixture';

/** Every line the broker logs, by level. */
class LogLines implements LoggerService {
  readonly lines: Array<{ level: string; message: string }> = [];
  log = (message: unknown) => this.lines.push({ level: 'log', message: String(message) });
  warn = (message: unknown) => this.lines.push({ level: 'warn', message: String(message) });
  error = (message: unknown, ...rest: unknown[]) => this.lines.push({ level: 'error', message: [message, ...rest].join(' ') });
  count = (level: string, containing: string) =>
    this.lines.filter((line) => line.level === level && line.message.includes(containing)).length;
}

/**
 * A subscription whose checkpoint cannot be written (here: its topic's `checkpoints/` folder replaced by a file,
 * which fails even for root, as a full disk does) attaches once writing works again, without a restart.
 */
describe('a subscription whose checkpoint cannot be created', () => {
  const consumer = new TestConsumer();
  let broker: BrokerApp;
  let logs: LogLines;
  let checkpoints: string;

  const start = async (delivery: MmmqBrokerOptions['delivery']) => {
    logs = new LogLines();
    broker = await startBroker({ delivery }, { bodyParser: false, logger: logs });
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    checkpoints = join(broker.rootDir, 'topics', 'order.created', 'checkpoints');
    rmSync(checkpoints, { recursive: true });
    writeFileSync(checkpoints, 'not a directory');
  };

  beforeAll(() => consumer.start());
  afterEach(async () => {
    consumer.received.length = 0;
    await broker.close();
  });
  afterAll(() => consumer.stop());

  it('is retried with backoff and delivers everything once the checkpoint can be written', async () => {
    await start(FAST_BACKOFF);
    await addDispatcher(broker, 'billing', consumer.url, 'order.*');
    await publishAll(broker, 'order.created', [{ n: 1 }]);
    await waitFor(() => logs.count('warn', 'order.created → billing: attaching failed') === 1, { message: 'the attach warning' });
    expect(consumer.received).toHaveLength(0);

    rmSync(checkpoints);
    mkdirSync(checkpoints);
    await consumer.waitFor(() => consumer.received.length === 2);
    expect(consumer.contents()).toEqual([{ n: 0 }, { n: 1 }]);
    expect(logs.count('log', 'order.created → billing: attached after')).toBe(1);
    expect(logs.count('warn', 'attaching failed')).toBe(1);
    const subscriptions = (await broker.request('GET', '/mmmq/subscriptions')).body;
    expect(subscriptions).toEqual([expect.objectContaining({ topic: 'order.created', consumerId: 'billing', position: 2 })]);
  });

  it('stops retrying when the broker shuts down, without waiting for the backoff', async () => {
    await start({ backoff: { initialMs: 60_000, maxMs: 60_000 } });
    await addDispatcher(broker, 'billing', consumer.url, 'order.*');
    await waitFor(() => logs.count('warn', 'attaching failed') === 1, { message: 'the attach warning' });
    let deadline: NodeJS.Timeout | undefined;
    const closed = broker.app.close();
    await Promise.race([
      closed,
      new Promise((_, reject) => (deadline = setTimeout(() => reject(new Error('close waited for the attach backoff')), 10_000))),
    ]);
    clearTimeout(deadline);
    await broker.app.close();
    expect(consumer.received).toHaveLength(0);
  });

  it('is dropped when the dispatcher is removed meanwhile: re-adding it starts one fresh subscription', async () => {
    await start({ backoff: { initialMs: 60_000, maxMs: 60_000 } });
    await addDispatcher(broker, 'billing', consumer.url, 'order.*');
    await waitFor(() => logs.count('warn', 'attaching failed') === 1, { message: 'the attach warning' });
    rmSync(checkpoints);
    mkdirSync(checkpoints);
    expect((await broker.request('DELETE', '/mmmq/dispatchers/billing')).status).toBe(204);
    await addDispatcher(broker, 'billing', consumer.url, 'order.*');
    await publishAll(broker, 'order.created', [{ n: 1 }]);
    await consumer.waitFor(() => consumer.received.length === 2);
    expect(consumer.contents()).toEqual([{ n: 0 }, { n: 1 }]);
    expect((await broker.request('GET', '/mmmq/subscriptions')).body).toHaveLength(1);
    expect(logs.count('log', 'attached after')).toBe(0);
  });
});
