import { DEFAULT_BACKOFF, Host, TopicPattern } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { TestConsumer, waitFor } from '@mmmq/test-support';
import { DeadLetterWriter } from '../../src/dispatch/dead-letter-writer';
import { DEFAULT_DELIVERY_OPTIONS } from '../../src/dispatch/delivery.options';
import { DEFAULT_ACK_TIMEOUT_MS, DispatcherDefinition, UNLIMITED_DELIVERIES } from '../../src/dispatch/dispatcher-definition';
import type { Slot } from '../../src/dispatch/ledger/slot';
import { PushSender } from '../../src/dispatch/push-sender';
import { Subscription } from '../../src/dispatch/subscription';
import { BrokerEvents } from '../../src/events/broker-events';
import { MmmqBrokerEvent } from '../../src/events/mmmq-broker-event';
import { decodeEnvelope } from '../../src/format/message-envelope';
import { encodeEnvelope } from '../../src/format/message-envelope';
import { CheckpointFile } from '../../src/storage/checkpoint-file';
import type { CommitPart } from '../../src/storage/journal/journal-commit';
import { JournalOpKind } from '../../src/storage/journal/journal-record';
import { StorageUnavailableError } from '../../src/storage/storage.errors';
import { decodeSnapshot } from '../../src/storage/subscription-snapshot';
import { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { useTempDir } from '../storage/temp-dir';
import { onCommitted, openContainer, publish, topicQueue } from '../support/topic-fixture';

// A failed journal write is provoked on purpose; what the subscription logs about retrying it is expected.
Logger.overrideLogger(false);

const DLQ = '__dlq.billing';

/** What one journal commit carried: the topics it appended to, its dead letters' original offsets, what it settles. */
interface Commit {
  topics: string[];
  deadLettered: number[];
  settles: (offset: number) => boolean;
}

/**
 * Settlements that dead-letter (terminate, the NACK past `maxNackRetries`, `maxDeliveries`, expiry, a backlog
 * limit): the dead letter and the subscription state that passes the message are one journal record, and the
 * settlement resolves only once that record is durable — so a crash never leaves both a redelivery and a dead
 * letter, and the caller (a pull `terminate`'s 200) is never answered before the cursor moved on disk.
 */
describe('a settlement that dead-letters', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer;
  let queue: TopicQueue;
  let checkpoint: CheckpointFile;
  let subscription: Subscription;
  let sender: PushSender;
  let commits: Commit[];
  let emitter: EventEmitter2;

  const subscribe = async (settings: Partial<DispatcherDefinition> = {}) => {
    const definition: DispatcherDefinition = {
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
      ...settings,
    };
    checkpoint = await queue.checkpoints.open('billing', 0, queue.tailOffset);
    subscription = new Subscription(queue, definition, checkpoint, {
      sender,
      deadLetters: new DeadLetterWriter(container, new BrokerEvents(emitter)),
      options: { ...DEFAULT_DELIVERY_OPTIONS, backoff: { ...DEFAULT_BACKOFF, initialMs: 10, maxMs: 20 } },
      events: new BrokerEvents(),
    });
    onCommitted(container, queue, () => subscription.signal());
  };

  beforeEach(async () => {
    container = openContainer(dir());
    queue = await topicQueue(container, 'order.created');
    await publish(queue, { n: 0 }, { n: 1 });
    sender = new PushSender();
    emitter = new EventEmitter2();
    commits = [];
    const commit = container.journal.commit.bind(container.journal);
    jest.spyOn(container.journal, 'commit').mockImplementation((parts, early) => {
      commits.push(describeCommit(parts));
      return commit(parts, early);
    });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await subscription?.stop();
    sender.close();
    await container.onApplicationShutdown();
  });

  const lease = async (): Promise<Slot> => {
    const [slot] = await subscription.acquire('worker', 1, 1 << 20, 60_000);
    return slot;
  };
  const deadLetters = () => container.get(DLQ)?.tailOffset ?? 0;
  /** The one commit that appended the dead letter of `offset` also settled it in the subscription state it carried. */
  const expectOneRecord = (offset: number) => {
    const holding = commits.filter((commit) => commit.deadLettered.includes(offset));
    expect(holding).toHaveLength(1);
    expect(holding[0].settles(offset)).toBe(true);
  };

  it('terminate resolves once the dead letter and the state that passes the message are durable, in one record', async () => {
    await subscribe();
    const slot = await lease();
    expect(await subscription.terminate(slot, 'TERMINATED', 'cannot parse the order')).toBe(true);
    // Nothing in the background is left to do: on disk now, the message is both dead-lettered and passed.
    expect(deadLetters()).toBe(1);
    expect(settledOnDisk(checkpoint, slot.offset)).toBe(true);
    expectOneRecord(slot.offset);
  });

  it('a repeated terminate of a message dead-lettered already changes nothing and makes no second dead letter', async () => {
    await subscribe();
    const slot = await lease();
    const delivery = slot.deliveries;
    await subscription.terminate(slot, 'TERMINATED', 'first');
    expect(subscription.leaseAt(slot.offset, delivery)).toBeUndefined();
    expect(await subscription.terminate(slot, 'TERMINATED', 'again')).toBe(false);
    expect(deadLetters()).toBe(1);
  });

  it('a failed record stores neither the dead letter nor the move; the retry stores both, once', async () => {
    await subscribe();
    const slot = await lease();
    let refused = 0;
    const commit = (container.journal.commit as jest.Mock).getMockImplementation()!;
    jest.spyOn(container.journal, 'commit').mockImplementation(async (parts, early) => {
      if (refused === 0 && describeCommit(parts).topics.includes(DLQ)) {
        refused++;
        throw new StorageUnavailableError('injected: the journal write failed');
      }
      return commit(parts, early);
    });
    expect(await subscription.terminate(slot, 'TERMINATED', 'cannot parse the order')).toBe(true);
    expect(refused).toBe(1);
    expect(deadLetters()).toBe(1);
    expect(settledOnDisk(checkpoint, slot.offset)).toBe(true);
  });

  it('the NACK past maxNackRetries resolves once its dead letter and the move are durable, in one record', async () => {
    await subscribe();
    for (let nack = 0; nack < DEFAULT_DELIVERY_OPTIONS.maxNackRetries; nack++) {
      const slot = await lease();
      expect(await subscription.release(slot, { outcome: 'NACK', counted: true, nack: {} }, slot.deliveries)).toBe(true);
      expect(deadLetters()).toBe(0);
    }
    const last = await lease();
    expect(subscription.isLastAttempt(last)).toBe(true);
    expect(await subscription.release(last, { outcome: 'NACK', counted: true, nack: {} }, last.deliveries)).toBe(true);
    expect(deadLetters()).toBe(1);
    expect(settledOnDisk(checkpoint, last.offset)).toBe(true);
    expectOneRecord(last.offset);
  });

  it('a lease that expires the last of maxDeliveries dead-letters with the move in one record', async () => {
    await subscribe({ maxDeliveries: 1 });
    const [slot] = await subscription.acquire('worker', 1, 1 << 20, 1);
    await waitFor(() => deadLetters() === 1, { message: 'the expired lease dead-lettered' });
    await waitFor(() => settledOnDisk(checkpoint, slot.offset), { message: 'the move on disk' });
    expectOneRecord(slot.offset);
  });

  it('an expired message dead-letters with the move in one record', async () => {
    await queue.offer(
      encodeEnvelope({
        id: 'late',
        topic: 'order.created',
        publishedAt: Date.now() - 1000,
        expiresAt: Date.now() - 1,
        headers: {},
        content: Buffer.from('{}'),
      }),
    );
    await subscribe();
    // The first two are leased; the third, expired, is set aside by the take that finds it.
    await subscription.acquire('worker', 3, 1 << 20, 60_000);
    await waitFor(() => deadLetters() === 1, { message: 'the expired message dead-lettered' });
    await waitFor(() => settledOnDisk(checkpoint, 2), { message: 'the move on disk' });
    expectOneRecord(2);
  });

  it('a backlog limit that dead-letters moves past each message in the record that holds its dead letter', async () => {
    await subscribe({ backlogLimit: { maxBacklog: 1, overflow: 'deadLetter' } });
    subscription.signal();
    await waitFor(() => deadLetters() === 1, { message: 'the oldest message dead-lettered for the backlog limit' });
    await waitFor(() => settledOnDisk(checkpoint, 0), { message: 'the move on disk' });
    expectOneRecord(0);
  });

  describe('through a push member', () => {
    const consumer = new TestConsumer();
    beforeAll(() => consumer.start());
    afterAll(() => consumer.stop());
    const pushTo = () => subscribe({ hosts: [Host.parse(consumer.url)] });

    it.each([
      ['a NACK with "retry": false (REJECTED)', () => 'REJECT' as const],
      ['a 413 for the message alone (TOO_LARGE)', () => ({ status: 413 })],
    ])('%s dead-letters with the move in one record', async (_, reply) => {
      consumer.reply = (delivery) => (delivery.body.offset === 0 ? reply() : 'ACK');
      await pushTo();
      await waitFor(() => deadLetters() === 1 && settledOnDisk(checkpoint, 1), { message: 'offset 0 dead-lettered, 1 acknowledged' });
      await waitFor(() => settledOnDisk(checkpoint, 0), { message: 'the move past offset 0 on disk' });
      expectOneRecord(0);
    });
  });

  it('dead letters sharing a record each learn their own offset in the dead-letter topic', async () => {
    await publish(queue, ...Array.from({ length: 8 }, (_, n) => ({ n: n + 2 })));
    const told = new Map<number, number>();
    emitter.on(MmmqBrokerEvent.MESSAGE_DEAD_LETTERED, (event: { offset: number; deadLetterOffset: number }) =>
      told.set(event.offset, event.deadLetterOffset),
    );
    await subscribe({ backlogLimit: { maxBacklog: 1, overflow: 'deadLetter' } });
    subscription.signal();
    await waitFor(() => told.size === 9, { message: 'nine dead letters for the backlog limit' });
    expect(commits.filter((commit) => commit.topics.includes(DLQ)).length).toBeLessThan(9);
    const dlq = container.get(DLQ)!;
    for (const [offset, at] of told) {
      const letter = decodeEnvelope((await dlq.peek(at))!);
      expect(letter.headers['mmmq-dlq-original-offset']).toBe(offset);
    }
    await waitFor(() => settledOnDisk(checkpoint, 8), { message: 'the moves on disk' });
    for (let offset = 0; offset < 9; offset++) expectOneRecord(offset);
  });
});

function describeCommit(parts: readonly CommitPart[]): Commit {
  const topics: string[] = [];
  const deadLettered: number[] = [];
  const snapshots: Array<{ cursor: number; settled: Array<[number, number]> }> = [];
  for (const part of parts) {
    if ('topic' in part) {
      topics.push(part.topic.name);
      if (part.topic.name !== DLQ) continue;
      for (const payload of part.payloads) deadLettered.push(decodeEnvelope(payload).headers['mmmq-dlq-original-offset'] as number);
    } else if (part.op.kind === JournalOpKind.CHECKPOINT) snapshots.push({ cursor: part.op.offset, settled: [] });
    else if (part.op.kind === JournalOpKind.CHECKPOINT_STATE) {
      const snapshot = decodeSnapshot(part.op.state);
      if (typeof snapshot !== 'string') snapshots.push(snapshot);
    }
  }
  return { topics, deadLettered, settles: (offset) => snapshots.some((snapshot) => covers(snapshot, offset)) };
}

function covers({ cursor, settled }: { cursor: number; settled: ReadonlyArray<readonly [number, number]> }, offset: number): boolean {
  return offset < cursor || settled.some(([first, end]) => offset >= first && offset < end);
}

function settledOnDisk(checkpoint: CheckpointFile, offset: number): boolean {
  return covers(checkpoint.snapshot, offset);
}
