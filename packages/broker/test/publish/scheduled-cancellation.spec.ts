import { Topic } from '@mmmq/core';
import { waitFor } from '@mmmq/test-support';
import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import { encodeEnvelope, type DecodedEnvelope, type MessageEnvelope } from '../../src/format/message-envelope';
import type { PublishIntake } from '../../src/publish/publish-intake';
import { cancelScheduled, NotCancellableError } from '../../src/publish/scheduled-cancellation';
import { ScheduledCancellations } from '../../src/publish/scheduled-cancellations';
import { TopicCancellations } from '../../src/publish/topic-cancellations';
import type { TopicQueue } from '../../src/storage/topic-queue';
import { cursorOnly } from '../../src/storage/subscription-snapshot';
import { LEASE_MS, TEST_LIMITS } from '../dispatch/ledger-fixture';

const TOPIC = 'order.scheduled';

/** A topic holding `entries` in memory; `reads` counts the entries read from it. */
function topic(entries: Array<Partial<MessageEnvelope>>): TopicQueue & { reads: number } {
  const payloads = entries.map((entry, n) =>
    encodeEnvelope({ id: `m${n}`, topic: TOPIC, publishedAt: 0, headers: {}, content: Buffer.from('null'), ...entry }),
  );
  const queue = {
    topic: Topic.of(TOPIC),
    startOffset: 0,
    tailOffset: payloads.length,
    reads: 0,
    peekMany: async (from: number, max: number) => {
      const read = payloads.slice(from, from + max);
      queue.reads += read.length;
      return read;
    },
  };
  return queue as unknown as TopicQueue & { reads: number };
}

/** An intake whose publishes wait until the test lets them end. */
function gatedIntake(): { intake: PublishIntake; published: Array<{ end: (error?: Error) => void }> } {
  const published: Array<{ end: (error?: Error) => void }> = [];
  const intake = {
    publish: () => new Promise<void>((resolve, reject) => published.push({ end: (error) => (error ? reject(error) : resolve()) })),
  };
  return { intake: intake as unknown as PublishIntake, published };
}

describe('TopicCancellations', () => {
  it('learns the cancellations written before it from the log once, from the lowest offset asked about', async () => {
    const queue = topic([{ dueAt: 1 }, {}, { id: 'mmmq-cancel-a', cancels: 0 }, { id: 'mmmq-cancel-b' }, { cancels: 1 }]);
    const cancellations = new TopicCancellations(queue);
    expect(cancellations.knows(1)).toBe(false);
    expect(cancellations.knows(5)).toBe(true);
    await cancellations.learnFrom(1);
    expect(cancellations.knows(1)).toBe(true);
    // Only records the broker wrote (named so, with `cancels`) count.
    expect([0, 1, 3].map((offset) => cancellations.statusOf(offset))).toEqual(['cancelled', undefined, undefined]);
    expect(queue.reads).toBe(4);
    await cancellations.learnFrom(2);
    expect(queue.reads).toBe(4);
  });
});

describe('cancelScheduled against a subscription whose message falls due meanwhile', () => {
  it('holds the message back while the cancellation is committed, and never delivers it once it is', async () => {
    const dueAt = Date.now() + 100;
    const queue = topic([{ id: 'a', dueAt }]);
    const cancellations = new ScheduledCancellations();
    const { intake, published } = gatedIntake();
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS, false, undefined, cancellations.of(queue));
    ledger.admit(scheduled(dueAt), 4);

    const answer = cancelScheduled(queue, intake, cancellations, { topic: Topic.of(TOPIC), id: 'a' });
    await waitFor(() => published.length === 1, { message: 'the cancellation record to be on its way' });
    await waitFor(() => Date.now() > dueAt, { message: 'the message to be due' });
    const promote = () => {
      for (const offset of ledger.dueOffsets(Date.now(), 10)) ledger.admitDue(offset, scheduled(dueAt), 4);
      return ledger.take('m', 10, Infinity, 0, LEASE_MS);
    };
    expect(promote()).toEqual([]);
    published[0].end();
    await expect(answer).resolves.toMatchObject({ id: 'a', offset: 0, dueAt });
    expect(promote()).toEqual([]);
    expect(ledger.scheduled).toBe(0);
    expect(ledger.hasDue(Date.now())).toBe(false);
  });

  it('hands the message out when the cancellation fails, and refuses one whose time has come', async () => {
    const dueAt = Date.now() + 100;
    const queue = topic([{ id: 'a', dueAt }]);
    const cancellations = new ScheduledCancellations();
    const { intake, published } = gatedIntake();
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS, false, undefined, cancellations.of(queue));
    ledger.admit(scheduled(dueAt), 4);

    const answer = cancelScheduled(queue, intake, cancellations, { topic: Topic.of(TOPIC), id: 'a' });
    await waitFor(() => published.length === 1, { message: 'the cancellation record to be on its way' });
    await waitFor(() => Date.now() > dueAt, { message: 'the message to be due' });
    published[0].end(new Error('disk full'));
    await expect(answer).rejects.toThrow('disk full');
    for (const offset of ledger.dueOffsets(Date.now(), 10)) ledger.admitDue(offset, scheduled(dueAt), 4);
    expect(ledger.take('m', 10, Infinity, 0, LEASE_MS).map((slot) => slot.offset)).toEqual([0]);

    const late = cancelScheduled(queue, intake, cancellations, { topic: Topic.of(TOPIC), id: 'a', offset: 0 });
    await expect(late).rejects.toThrow(NotCancellableError);
    expect(cancellations.of(queue).statusOf(0)).toBeUndefined();
    expect(published).toHaveLength(1);
  });
});

/** Message `a` as the log reader reads it. */
function scheduled(dueAt: number): DecodedEnvelope {
  return { id: 'a', topic: TOPIC, publishedAt: 0, headers: {}, dueAt, content: Buffer.from('null') };
}
