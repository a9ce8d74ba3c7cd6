import { DEFAULT_BACKOFF, TopicPattern } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { DeadLetterWriter } from '../../src/dispatch/dead-letter-writer';
import { DEFAULT_DELIVERY_OPTIONS } from '../../src/dispatch/delivery.options';
import { DEFAULT_ACK_TIMEOUT_MS, DispatcherDefinition, UNLIMITED_DELIVERIES } from '../../src/dispatch/dispatcher-definition';
import { PushSender } from '../../src/dispatch/push-sender';
import { Subscription } from '../../src/dispatch/subscription';
import { StaleLeaseError } from '../../src/dispatch/transaction.errors';
import { BrokerEvents } from '../../src/events/broker-events';
import { CheckpointFile } from '../../src/storage/checkpoint-file';
import type { CommitPart } from '../../src/storage/journal/journal-commit';
import { StorageUnavailableError } from '../../src/storage/storage.errors';
import { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { useTempDir } from '../storage/temp-dir';
import { openContainer, publish, topicQueue } from '../support/topic-fixture';

// A failed journal write is provoked on purpose; what the subscription logs about retrying it is expected.
Logger.overrideLogger(false);

/** Holds the journal's next commit until `release()`, then lets it through or fails it. */
function holdNextCommit(container: TopicQueueContainer) {
  const original = container.journal.commit.bind(container.journal);
  let release!: (outcome: 'commit' | Error) => void;
  const outcome = new Promise<'commit' | Error>((resolve) => (release = resolve));
  const held = { parts: undefined as readonly CommitPart[] | undefined, release };
  jest.spyOn(container.journal, 'commit').mockImplementationOnce(async (parts) => {
    held.parts = parts;
    const verdict = await outcome;
    if (verdict instanceof Error) throw verdict;
    return original(parts);
  });
  return held;
}

describe('a subscription committing transactions', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer;
  let queue: TopicQueue;
  let output: TopicQueue;
  let checkpoint: CheckpointFile;
  let subscription: Subscription;
  let sender: PushSender;
  let definition: DispatcherDefinition;
  const subscribe = (backoffMs: number) =>
    new Subscription(queue, definition, checkpoint, {
      sender,
      deadLetters: new DeadLetterWriter(container),
      options: { ...DEFAULT_DELIVERY_OPTIONS, backoff: { ...DEFAULT_BACKOFF, initialMs: backoffMs, maxMs: 2 * backoffMs } },
      events: new BrokerEvents(),
    });

  beforeEach(async () => {
    container = openContainer(dir());
    queue = await topicQueue(container, 'order.created');
    output = await topicQueue(container, 'invoice.created');
    await publish(queue, { n: 0 }, { n: 1 });
    definition = {
      consumerId: 'billing',
      hosts: [],
      patterns: [new TopicPattern('order.*')],
      startFrom: 'earliest',
      batchSize: 1,
      maxInFlight: 1,
      ordered: true,
      maxDeliveries: UNLIMITED_DELIVERIES,
      ackTimeoutMs: DEFAULT_ACK_TIMEOUT_MS,
      exclusive: false,
    };
    checkpoint = await queue.checkpoints.open('billing', 0, queue.tailOffset);
    sender = new PushSender();
    subscription = subscribe(10);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await subscription.stop();
    sender.close();
    await container.onApplicationShutdown();
  });

  const lease = async () => {
    const [slot] = await subscription.acquire('worker', 1, 1 << 20, 60_000);
    return { slot, delivery: slot.deliveries, lease: `order.created:${slot.offset}:${slot.deliveries}` };
  };
  const invoice = (): CommitPart[] => [{ topic: output, payloads: [Buffer.from('{"invoice":0}')] }];

  it('writes the outputs and the state with the input settled in one journal record, and settles the input when it is applied', async () => {
    const input = await lease();
    const held = holdNextCommit(container);
    const committing = subscription.commitTransaction([input], invoice());
    await waitForHeld(held);
    expect(held.parts!.map((part) => ('topic' in part ? part.topic.name : part.op.kind))).toEqual(['invoice.created', expect.any(Number)]);
    // Not settled before the record is applied: a failure must leave it leased.
    expect(subscription.leaseAt(input.slot.offset, input.delivery)).toBe(input.slot);
    held.release('commit');
    expect(await committing).toEqual([0]);
    expect(subscription.leaseAt(input.slot.offset)).toBeUndefined();
    expect(settledOnDisk(checkpoint, 0)).toBe(true);
    expect(output.tailOffset).toBe(1);
    expect(subscription.stats).toMatchObject({ transacted: 1, delivered: 1 });
  });

  it('a state written after the transaction record keeps its input settled and adds what was settled meanwhile', async () => {
    const input = await lease();
    const other = await lease();
    const committing = subscription.commitTransaction([input], invoice());
    // Settled while the record is on its way: the state write that follows must carry both.
    subscription.ack(other.slot, other.delivery);
    await committing;
    await subscription.durable();
    expect([settledOnDisk(checkpoint, 0), settledOnDisk(checkpoint, 1)]).toEqual([true, true]);
    expect(checkpoint.snapshot.cursor).toBe(2);
  });

  it('a failed record publishes nothing, leaves the input leased, and no state on disk claims it settled', async () => {
    const input = await lease();
    const held = holdNextCommit(container);
    const committing = subscription.commitTransaction([input], invoice());
    await waitForHeld(held);
    held.release(new StorageUnavailableError('injected: the journal write failed'));
    await expect(committing).rejects.toThrow('injected');
    expect(output.tailOffset).toBe(0);
    expect(subscription.leaseAt(input.slot.offset, input.delivery)).toBe(input.slot);
    await subscription.durable();
    expect(settledOnDisk(checkpoint, 0)).toBe(false);
    // The lease is still the current one: the consumer may commit it again.
    expect(await subscription.commitTransaction([input], invoice())).toEqual([0]);
  });

  it('writes its own state again at once after a record refused for a transaction: an ACK does not wait out a backoff', async () => {
    await subscription.stop();
    // A backoff far longer than the test's deadline: only a retry without it makes the ACK durable in time.
    subscription = subscribe(600_000);
    const input = await lease();
    const other = await lease();
    const held = holdNextCommit(container);
    const committing = subscription.commitTransaction([input], invoice());
    await waitForHeld(held);
    subscription.ack(other.slot, other.delivery);
    held.release(new StorageUnavailableError('injected: an output topic write failed'));
    await expect(committing).rejects.toThrow('injected');
    expect(await subscription.durable()).toBe(true);
    expect(settledOnDisk(checkpoint, other.slot.offset)).toBe(true);
    expect(settledOnDisk(checkpoint, input.slot.offset)).toBe(false);
  });

  it('holds a NACK of an input while its record is written: dropped when it commits, applied when it fails', async () => {
    const committed = await lease();
    let held = holdNextCommit(container);
    let committing = subscription.commitTransaction([committed], invoice());
    await waitForHeld(held);
    subscription.release(committed.slot, { outcome: 'NACK', counted: true, nack: {} }, committed.delivery);
    expect(subscription.leased).toBe(1);
    held.release('commit');
    await committing;
    expect(subscription.stats).toMatchObject({ nacked: 0, transacted: 1 });

    const failed = await lease();
    held = holdNextCommit(container);
    committing = subscription.commitTransaction([failed], invoice());
    await waitForHeld(held);
    subscription.release(failed.slot, { outcome: 'NACK', counted: true, nack: {} }, failed.delivery);
    expect(subscription.leased).toBe(1);
    held.release(new StorageUnavailableError('injected'));
    await expect(committing).rejects.toThrow('injected');
    expect(subscription.leased).toBe(0);
    expect(subscription.stats.nacked).toBe(1);
  });

  it('refuses a stale lease and a second transaction of an input being committed, publishing nothing for them', async () => {
    const input = await lease();
    const held = holdNextCommit(container);
    const first = subscription.commitTransaction([input], invoice());
    await waitForHeld(held);
    const second = subscription.commitTransaction([input], invoice());
    held.release('commit');
    await first;
    await expect(second).rejects.toBeInstanceOf(StaleLeaseError);
    expect(output.tailOffset).toBe(1);
    await expect(subscription.commitTransaction([input], invoice())).rejects.toBeInstanceOf(StaleLeaseError);
  });
});

/** What the checkpoint's durable state says of `offset`: below the cursor, or in a settled range above it. */
function settledOnDisk(checkpoint: CheckpointFile, offset: number): boolean {
  const { cursor, settled } = checkpoint.snapshot;
  return offset < cursor || settled.some(([first, end]) => offset >= first && offset < end);
}

async function waitForHeld(held: { parts?: unknown }): Promise<void> {
  for (let i = 0; i < 100 && held.parts === undefined; i++) await new Promise((resolve) => setImmediate(resolve));
  if (held.parts === undefined) throw new Error('the transaction never reached the journal');
}
