import { Topic } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { PublishIntake } from '../../src/publish/publish-intake';
import type { PublishableMessage } from '../../src/format/publishable-message';
import { FileHandle } from '../../src/storage/file-handle';
import { EARLY_ANSWER_MAX_PENDING_BYTES } from '../../src/storage/journal/journal';
import { StorageUnavailableError } from '../../src/storage/storage.errors';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { TopicPolicies } from '../../src/topics/topic-policies';
import { resolveTopicsOptions } from '../../src/topics/topic-policy.resolver';
import { IoSpy, ioError } from '../storage/io-spy';
import { NO_AUTOMATIC_FLUSH } from '../storage/recovered-state';
import { useTempDir } from '../storage/temp-dir';
import { persistenceOptions } from '../support/topic-fixture';

const message = (topic: string, id: string, deliveryMode?: PublishableMessage['deliveryMode']): PublishableMessage => ({
  topic: Topic.of(topic),
  id,
  headers: {},
  content: Buffer.from(JSON.stringify(id)),
  deliveryMode,
});

/** Settles `promise` into a state the test can read without awaiting it. */
function track<T>(promise: Promise<T>): { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } {
  const tracked: { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = { state: 'pending' };
  promise.then(
    (value) => Object.assign(tracked, { state: 'resolved', value }),
    (error: unknown) => Object.assign(tracked, { state: 'rejected', error }),
  );
  return tracked;
}

/** Lets every callback queued so far (setImmediate included, where the journal starts a group) run. */
const turns = async (count = 5) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('PublishIntake delivery modes', () => {
  const dir = useTempDir();
  let spy: IoSpy;
  let container: TopicQueueContainer;
  let intake: PublishIntake;
  /** Journal fsyncs wait for this while set. */
  let gate: Promise<void> | undefined;
  let open: () => void;
  let errors: jest.SpyInstance;

  beforeEach(async () => {
    spy = IoSpy.install();
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    spy.onSync((path, proceed) => (gate && path.endsWith('.journal') ? gate.then(proceed) : undefined));
    container = TopicQueueContainer.standalone(persistenceOptions(dir(), NO_AUTOMATIC_FLUSH));
    await container.getOrCreate(Topic.of('orders'));
    await container.getOrCreate(Topic.of('metrics'));
    const policies = new TopicPolicies(resolveTopicsOptions({ overrides: [{ pattern: 'metrics', deliveryMode: 'nonPersistent' }] }));
    intake = new PublishIntake(container, undefined, policies);
  });

  afterEach(async () => {
    open?.();
    gate = undefined;
    await container.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  const holdJournalFsyncs = () => (gate = new Promise<void>((resolve) => (open = resolve)));
  const tail = (topic: string) => container.get(topic)?.tailOffset;

  it('acknowledges a nonPersistent publish while its journal fsync is still held, and shows it to readers only once durable', async () => {
    holdJournalFsyncs();
    const acked = await intake.publish(message('orders', 'fast', 'nonPersistent'));
    expect(acked).toEqual({ id: 'fast', topic: 'orders', deliveryMode: 'nonPersistent' });
    await turns();
    expect(tail('orders')).toBe(0);
    open();
    await container.journal.drain();
    expect(tail('orders')).toBe(1);
  });

  it('answers nonPersistent publishes only once written while more than the early-answer bound waits for the journal (backpressure)', async () => {
    holdJournalFsyncs();
    const big = (id: string): PublishableMessage => ({
      ...message('metrics', id),
      content: Buffer.from(JSON.stringify('x'.repeat(1024 * 1024))),
    });
    // The first is answered at once; while its fsync is held, the next ones pile up in the journal's queue.
    await intake.publish(big('first'));
    await turns();
    const answered: Array<ReturnType<typeof track>> = [];
    for (let n = 0; n < EARLY_ANSWER_MAX_PENDING_BYTES / (1024 * 1024) + 2; n++) answered.push(track(intake.publish(big(`m${n}`))));
    await turns();
    // The bound counts what waits: once it is reached, the publishes after it wait for their write.
    const early = answered.filter((publish) => publish.state === 'resolved').length;
    expect(early).toBeGreaterThan(0);
    expect(early).toBeLessThan(answered.length);
    open();
    await container.journal.drain();
    await turns();
    expect(answered.every((publish) => publish.state === 'resolved')).toBe(true);
    expect(tail('metrics')).toBe(answered.length + 1);
  });

  it('still acknowledges a persistent publish only after its journal fsync', async () => {
    holdJournalFsyncs();
    const persistent = track(intake.publish(message('orders', 'slow', 'persistent')));
    await turns();
    expect(persistent.state).toBe('pending');
    open();
    await container.journal.drain();
    await turns(1);
    expect(persistent).toEqual({ state: 'resolved', value: { id: 'slow', topic: 'orders', offset: 0, deliveryMode: 'persistent' } });
  });

  it("takes the topic's default mode for a message without one, and the message's own mode over it", async () => {
    holdJournalFsyncs();
    expect(await intake.publish(message('metrics', 'by-default'))).toMatchObject({ deliveryMode: 'nonPersistent' });
    const own = track(intake.publish(message('metrics', 'own', 'persistent')));
    const unset = track(intake.publish(message('orders', 'unset')));
    await turns();
    expect([own.state, unset.state]).toEqual(['pending', 'pending']);
    open();
    await container.journal.drain();
    await turns(1);
    expect(own.value).toEqual({ id: 'own', topic: 'metrics', offset: 1, deliveryMode: 'persistent' });
    expect(unset.value).toMatchObject({ offset: 0, deliveryMode: 'persistent' });
  });

  it('makes a batch persistent when any of its messages is: acknowledged after the fsync, with every offset', async () => {
    holdJournalFsyncs();
    const batch = track(intake.publishBatch([message('metrics', 'a'), message('orders', 'b', 'persistent')]));
    await turns();
    expect(batch.state).toBe('pending');
    open();
    await container.journal.drain();
    await turns(1);
    expect(batch.value).toEqual([
      { id: 'a', topic: 'metrics', offset: 0, deliveryMode: 'persistent' },
      { id: 'b', topic: 'orders', offset: 0, deliveryMode: 'persistent' },
    ]);
  });

  it('never lets a nonPersistent publish overtake a persistent one: it is acknowledged first but stored after it', async () => {
    holdJournalFsyncs();
    const first = track(intake.publish(message('orders', 'first', 'persistent')));
    await intake.publish(message('orders', 'second', 'nonPersistent'));
    expect(first.state).toBe('pending');
    open();
    await container.journal.drain();
    await turns(1);
    expect(first.value).toMatchObject({ offset: 0 });
    const stored = await container.get('orders')!.peekMany(0, 10);
    expect(stored.map((entry) => JSON.parse(entry.toString()).id)).toEqual(['first', 'second']);
  });

  it('fsyncs a lone nonPersistent commit off the event loop (its publisher may send more meanwhile), a lone persistent one on it', async () => {
    const journalSyncs = () => {
      const sync = FileHandle.prototype.sync as jest.MockedFunction<FileHandle['sync']>;
      return sync.mock.calls.flatMap((args, i) => ((sync.mock.contexts[i] as FileHandle).path.endsWith('.journal') ? [args[0]] : []));
    };
    const before = journalSyncs().length;
    await intake.publish(message('orders', 'alone'));
    await (
      await intake.enqueue([message('orders', 'early', 'nonPersistent')])
    ).committed;
    expect(journalSyncs().slice(before)).toEqual([true, false]);
  });

  it('counts and logs a nonPersistent message lost to a failed journal fsync after its ACK', async () => {
    let fail!: () => void;
    const failing = new Promise<void>((resolve) => (fail = resolve));
    spy.onSync((path) => (path.endsWith('.journal') ? failing.then(() => Promise.reject(ioError('EIO', 'fdatasync'))) : undefined));
    const acked = await intake.publishBatch([message('orders', 'gone-1', 'nonPersistent'), message('orders', 'gone-2', 'nonPersistent')]);
    expect(acked.map((published) => published.deliveryMode)).toEqual(['nonPersistent', 'nonPersistent']);
    fail();
    await container.journal.drain();
    await turns(1);
    expect(container.journal.stats.nonPersistentLost).toBe(2);
    expect((await container.view()).nonPersistentLost).toBe(2);
    expect(tail('orders')).toBe(0);
    const logged = errors.mock.calls.map(([text]) => String(text)).find((text) => text.includes('nonPersistent'));
    expect(logged).toMatch(/2 nonPersistent message\(s\) acknowledged on receipt were lost.*EIO.*orders\/gone-1, orders\/gone-2/);
  });

  it('does not acknowledge a nonPersistent publish while the journal refuses writes: it answers what the write did', async () => {
    spy.onSync((path) => (path.endsWith('.journal') ? Promise.reject(ioError('EIO', 'fdatasync')) : undefined));
    await expect(intake.publish(message('orders', 'breaks-it'))).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(container.journal.failed).toBe(true);
    await expect(intake.publish(message('orders', 'refused', 'nonPersistent'))).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(container.journal.stats.nonPersistentLost).toBe(0);
  });
});
