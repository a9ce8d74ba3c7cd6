import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, removeTempDir, TestConsumer, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { range } from './delivery.fixture';
import { PullClient } from './pull.fixture';

const DLQ = '__dlq.billing';

describe('purging dead letters', () => {
  let rootDir: string;
  let broker: BrokerApp;
  const consumer = new TestConsumer();
  // Small segments, so a purge has whole segments to delete; a quick retention check, for the ones still journaled.
  const options = { persistence: { segment: { maxBytes: 1024 }, retention: { checkIntervalMs: 100 }, flush: { intervalMs: 50 } } };
  const start = () => startBroker({ ...options, persistence: { ...options.persistence, rootDir } });
  const offsets = async () => (await broker.request('GET', '/mmmq/dead-letters/billing')).body.deadLetters.map((d: any) => d.offset);

  beforeAll(async () => {
    rootDir = await makeTempDir('mmmq-purge-');
    await consumer.start();
    consumer.reply = () => 'REJECT';
    broker = await start();
    await broker.addDispatcher('billing', consumer.url, 'order.*');
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
    await removeTempDir(rootDir);
  });

  it('drops the dead letters below an offset, then all, durably: not listed, not redriven, their segments deleted', async () => {
    // Padding makes each dead letter a few hundred bytes: 30 of them fill several 1 KiB segments.
    await broker.publishAll(
      'order.created',
      range(30).map((n) => ({ n, padding: 'x'.repeat(300) })),
    );
    await waitFor(async () => (await broker.request('GET', '/mmmq/dead-letters/billing')).body.total === 30, {
      message: 'the dead letters',
    });
    const before = (await broker.request('GET', `/mmmq/topics/${DLQ}`)).body;
    expect(before).toMatchObject({ startOffset: 0, purgedBelow: 0, messages: 30 });
    expect(before.segments).toBeGreaterThan(3);

    const some = await broker.request('POST', '/mmmq/dead-letters/billing/purge', { before: 10 });
    expect(some).toMatchObject({ status: 200, body: { consumerId: 'billing', purged: 10, startOffset: 10 } });
    expect(await offsets()).toEqual(range(20).map((n) => n + 10));
    const listed = (await broker.request('GET', '/mmmq/dead-letters/billing?from=0&limit=5')).body;
    expect(listed).toMatchObject({ startOffset: 10, total: 30, nextFrom: 15 });
    expect(listed.deadLetters.map((d: any) => d.offset)).toEqual([10, 11, 12, 13, 14]);
    // Purging a range purged already changes nothing.
    expect((await broker.request('POST', '/mmmq/dead-letters/billing/purge', { before: 5 })).body).toMatchObject({
      purged: 0,
      startOffset: 10,
    });

    const all = await broker.request('POST', '/mmmq/dead-letters/billing/purge');
    expect(all).toMatchObject({ status: 200, body: { purged: 20, startOffset: 30 } });
    expect(await offsets()).toEqual([]);
    expect((await broker.request('POST', '/mmmq/dead-letters/billing/redrive', {})).body).toEqual({ redriven: 0 });
    const info = (await broker.request('GET', `/mmmq/topics/${DLQ}`)).body;
    expect(info).toMatchObject({ startOffset: 30, purgedBelow: 30, tailOffset: 30, messages: 0 });
    // Every segment but the tail lies wholly below the mark: deleted, by the purge or the next retention check.
    await waitFor(async () => (await broker.request('GET', `/mmmq/topics/${DLQ}`)).body.segments === 1, {
      message: 'the purged segments to be deleted',
    });
    const files = await readdir(join(rootDir, 'topics', DLQ));
    expect(files.filter((name) => name.endsWith('.mmm'))).toHaveLength(1);
  });

  it('still holds after a restart; a new dead letter is listed and redriven alone', async () => {
    await broker.close();
    broker = await start();
    expect(await offsets()).toEqual([]);
    expect((await broker.request('GET', `/mmmq/topics/${DLQ}`)).body).toMatchObject({ startOffset: 30, purgedBelow: 30 });
    expect((await broker.request('POST', '/mmmq/dead-letters/billing/redrive', {})).body).toEqual({ redriven: 0 });

    await broker.publish('order.created', { n: 30 });
    await waitFor(async () => (await offsets()).length === 1, { message: 'the new dead letter' });
    expect(await offsets()).toEqual([30]);
    consumer.reply = () => 'ACK';
    expect((await broker.request('POST', '/mmmq/dead-letters/billing/redrive', {})).body).toEqual({ redriven: 1 });
    // 30 rejected, the 31st rejected, then only that one again: nothing purged came back.
    await consumer.waitFor(() => consumer.received.length === 32);
    expect(consumer.received[31].body).toMatchObject({ topic: 'order.created', content: { n: 30 } });
    // Redriving all moved it out of the list.
    expect(await offsets()).toEqual([]);
  });

  it('starts a subscription to the dead-letter topic past the purged ones (and the ones a redrive moved)', async () => {
    consumer.reply = () => 'REJECT';
    await broker.publish('order.created', { n: 31 });
    await waitFor(async () => (await offsets()).length === 1, { message: 'the next dead letter' });
    const watcher = new PullClient(broker, 'dlq-watcher');
    await watcher.register({ pattern: DLQ });
    const fetched = await watcher.fetch({ max: 10, waitMs: 5000 });
    expect(fetched.map((message) => message.offset)).toEqual([31]);
  });

  it('refuses a bad body and an unknown consumer', async () => {
    const purge = (body: unknown, consumerId = 'billing') => broker.request('POST', `/mmmq/dead-letters/${consumerId}/purge`, body);
    expect((await purge({ before: -1 })).status).toBe(400);
    expect((await purge({ before: 1.5 })).status).toBe(400);
    expect((await purge({ ids: ['x'] })).status).toBe(400);
    expect((await purge([])).status).toBe(400);
    expect((await purge({}, 'nobody')).status).toBe(404);
  });
});
