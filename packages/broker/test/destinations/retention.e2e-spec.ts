import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { expectQuiet, makeTempDir, removeTempDir, waitFor } from '@mmmq/test-support';
import { MmmqBrokerOptions, TopicInfo, TopicRegistry } from '../../src';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { PullClient } from '../delivery/pull.fixture';
import { range } from '../delivery/delivery.fixture';

/** About 160 bytes stored per message: a 1 KiB segment holds a handful. */
const SEGMENT_BYTES = 1024;
const RETENTION_BYTES = 2048;
const padding = 'x'.repeat(100);

const options = (extra: MmmqBrokerOptions = {}): MmmqBrokerOptions => ({
  persistence: { segment: { maxBytes: SEGMENT_BYTES }, flush: { intervalMs: 20 }, retention: { checkIntervalMs: 50 } },
  topics: {
    overrides: [
      { pattern: 'size.*', retention: { bytes: RETENTION_BYTES } },
      { pattern: 'size.deleted', retention: { whenNeeded: 'delete' } },
      { pattern: 'age.*', retention: { ms: 200 } },
    ],
  },
  ...extra,
});

describe('retention', () => {
  let broker: BrokerApp;
  const info = (topic: string): TopicInfo => broker.app.get(TopicRegistry).get(topic)!;
  const segmentFiles = async (topic: string) =>
    (await fs.readdir(join(broker.rootDir, 'topics', topic))).filter((name) => name.endsWith('.mmm'));
  /** Retention has deleted all it will: the topic is within its limit, or down to its tail segment. */
  const trimmed = (topic: string) =>
    waitFor(() => info(topic).bytes <= RETENTION_BYTES || info(topic).segments === 1, {
      message: () => `${topic} to shrink to its retention, now ${JSON.stringify(info(topic))}`,
    });
  const publish = (topic: string, count: number, from = 0) =>
    broker.publishAll(
      topic,
      range(count, from).map((n) => ({ n, padding })),
    );

  beforeEach(async () => {
    broker = await startBroker(options());
  });
  afterEach(() => broker.close());

  it('deletes the oldest whole segments of a topic created after start until it is within retention.bytes, never the tail', async () => {
    await publish('size.unread', 60);

    await trimmed('size.unread');
    const topic = info('size.unread');
    expect(topic.startOffset).toBeGreaterThan(0);
    expect(topic.tailOffset).toBe(60);
    expect(topic.retentionHeldBytes).toBe(0);
    // The deleted segments' files are gone (unlinked just after a segment leaves the chain); the tail is kept.
    await waitFor(async () => (await segmentFiles('size.unread')).length === info('size.unread').segments, {
      message: 'the files of the deleted segments to be removed',
    });
    // A subscription made now starts at the oldest retained message, with nothing counted as skipped.
    const latecomer = new PullClient(broker, 'latecomer');
    await latecomer.register({ pattern: 'size.unread' });
    const [first] = await latecomer.fetch({ max: 1 });
    expect(first.offset).toBe(info('size.unread').startOffset);
    expect((await broker.subscription('latecomer', 'size.unread')).stats.retentionSkipped).toBe(0);
  });

  it('keeps what a subscription has not consumed (keep), shows the held bytes, and deletes it once consumed', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const heldWarnings = () => warn.mock.calls.filter(([message]) => /Topic size\.kept: retention keeps/.test(String(message))).length;
    const consumer = new PullClient(broker, 'keeper');
    await consumer.register({ pattern: 'size.kept' });
    await publish('size.kept', 60);

    await waitFor(() => info('size.kept').retentionHeldBytes > 0, { message: 'retention to report the held bytes' });
    // Warned once when the hold starts, not at every check.
    await expectQuiet(heldWarnings, { forMs: 500, message: 'another warning about the same hold' });
    expect(heldWarnings()).toBe(1);
    expect(info('size.kept').startOffset).toBe(0);
    expect(info('size.kept').bytes).toBeGreaterThan(RETENTION_BYTES + SEGMENT_BYTES);

    const offsets: number[] = [];
    while (offsets.length < 60) {
      const fetched = await consumer.fetch({ max: 20 });
      offsets.push(...fetched.map((message) => message.offset));
      await consumer.ack(fetched.map((message) => message.lease));
    }
    expect(offsets).toEqual(range(60));
    await waitFor(() => info('size.kept').startOffset > 0 && info('size.kept').retentionHeldBytes === 0, {
      message: () => `consumed segments to be deleted, now ${JSON.stringify(info('size.kept'))}`,
    });
  });

  it('deletes what a subscription still needs (delete): it resumes at the oldest retained offset and counts the skipped', async () => {
    const consumer = new PullClient(broker, 'skipper');
    await consumer.register({ pattern: 'size.deleted' });
    await publish('size.deleted', 60);
    await trimmed('size.deleted');
    const start = info('size.deleted').startOffset;
    expect(start).toBeGreaterThan(0);

    const offsets: number[] = [];
    while (offsets.length < 60 - start) {
      const fetched = await consumer.fetch({ max: 100 });
      offsets.push(...fetched.map((message) => message.offset));
      await consumer.ack(fetched.map((message) => message.lease));
    }
    expect(offsets).toEqual(range(60 - start, start));
    const subscription = await broker.subscription('skipper', 'size.deleted');
    expect(subscription.stats.retentionSkipped).toBe(start);
    expect(subscription.stats.corruptSkipped).toBe(0);
  });

  it('deletes closed segments whose newest message is older than retention.ms', async () => {
    await publish('age.old', 30);
    // Not checked here that several segments exist first: on a busy machine publishing takes longer than retention.ms
    // and the first ones may be gone already. A start past 0 with the tail at 30 shows whole segments were deleted.
    await waitFor(() => info('age.old').segments === 1, { message: () => `old segments to go, now ${JSON.stringify(info('age.old'))}` });
    expect(info('age.old').startOffset).toBeGreaterThan(0);
    expect(info('age.old').tailOffset).toBe(30);
  });
});

describe('retention after a restart', () => {
  let rootDir: string;
  let broker: BrokerApp | undefined;

  beforeEach(async () => (rootDir = await makeTempDir('mmmq-retention-')));
  afterEach(async () => {
    await broker?.close();
    await removeTempDir(rootDir);
  });

  it('applies a size limit set at the restart to a topic written before, and a subscription resumes past the deleted part', async () => {
    const first = await startBroker({ ...options({ topics: {} }), persistence: { ...options().persistence, rootDir } });
    const consumer = new PullClient(first, 'reader');
    await consumer.register({ pattern: 'size.deleted' });
    await first.publishAll(
      'size.deleted',
      range(60).map((n) => ({ n, padding })),
    );
    await first.close();

    broker = await startBroker({ ...options(), persistence: { ...options().persistence, rootDir } });
    const registry = broker.app.get(TopicRegistry);
    const trimmedAfterRestart = () => registry.get('size.deleted')!.bytes <= RETENTION_BYTES;
    await waitFor(trimmedAfterRestart, { message: 'retention to trim the restored topic' });
    const start = registry.get('size.deleted')!.startOffset;
    expect(start).toBeGreaterThan(0);
    const [message] = await new PullClient(broker, 'reader').fetch({ max: 1 });
    expect(message.offset).toBe(start);
    expect((await broker.subscription('reader', 'size.deleted')).stats.retentionSkipped).toBe(start);
  });
});
