import { InvalidMessageError, InvalidTopicError, type TransportMessage } from '@mmmq/core';
import { resolveBrokerOptions } from '../../src/mmmq-broker-options.resolver';
import { InProcessPublisher } from '../../src/in-process/in-process-publisher';
import type { Enqueued, PublishIntake } from '../../src/publish/publish-intake';
import { PublishRequestParser } from '../../src/publish/publish-request.parser';
import type { PublishableMessage } from '../../src/format/publishable-message';
import type { ScheduledCanceller } from '../../src/publish/scheduled-canceller';

/** These tests only publish: no topic is looked up. */
const NO_CANCELLER = {} as ScheduledCanceller;
const parser = new PublishRequestParser(resolveBrokerOptions({ http: { maxJsonDepth: 3, maxBatchMessages: 2 } }).http);

const message = (overrides: Partial<TransportMessage> = {}): TransportMessage => ({
  id: 'm-1',
  topic: 'orders',
  headers: undefined,
  content: '{"total":12}',
  deliveryMode: undefined,
  ...overrides,
});

/** An intake that records what it was given and takes its place in the order only when told. */
function scriptedIntake() {
  const enqueued: PublishableMessage[][] = [];
  const places: Array<() => void> = [];
  const intake = {
    enqueue: (messages: readonly PublishableMessage[]) =>
      new Promise<Enqueued>((resolve) => {
        enqueued.push([...messages]);
        const acks = messages.map((m, i) => ({ id: m.id, topic: m.topic.name, offset: i, deliveryMode: 'persistent' as const }));
        places.push(() => resolve({ deliveryMode: 'persistent', acknowledged: Promise.resolve(acks), committed: Promise.resolve() }));
      }),
  } as unknown as PublishIntake;
  return { intake, enqueued, places };
}

describe('InProcessPublisher', () => {
  it('checks a message as POST /mmmq/messages does, without a JSON body: its bytes are the content as given', async () => {
    const { intake, enqueued, places } = scriptedIntake();
    const publishing = new InProcessPublisher(parser, intake, NO_CANCELLER).publish(
      message({ headers: { tenant: 'a' }, priority: 7, ttlMs: 1000 }),
    );
    await Promise.resolve();
    places[0]();
    await expect(publishing).resolves.toEqual({ id: 'm-1', topic: 'orders', offset: 0, deliveryMode: 'persistent' });
    const [stored] = enqueued[0];
    expect(stored).toMatchObject({ id: 'm-1', idFromProducer: true, headers: { tenant: 'a' }, priority: 7, ttlMs: 1000 });
    expect(stored.topic.name).toBe('orders');
    expect(stored.content.toString()).toBe('{"total":12}');
  });

  it.each([
    [
      'content nested deeper than http.maxJsonDepth',
      message({ content: '{"a":{"b":{"c":{"d":1}}}}' }),
      InvalidMessageError,
      /deeper than the limit of 3/,
    ],
    ['a reserved topic', message({ topic: '__dlq.orders' }), InvalidTopicError, /reserved/],
    ['an invalid id', message({ id: '' }), InvalidMessageError, /id/],
    ['ttlMs with expiresAt', message({ ttlMs: 5, expiresAt: 10 }), InvalidMessageError, /cannot both be given/],
  ])('refuses %s with the error the HTTP route gives, committing nothing', async (_what, refused, ErrorClass, text) => {
    const { intake, enqueued } = scriptedIntake();
    const publisher = new InProcessPublisher(parser, intake, NO_CANCELLER);
    expect(() => publisher.publish(refused)).toThrow(ErrorClass);
    expect(() => publisher.publish(refused)).toThrow(text);
    expect(enqueued).toEqual([]);
  });

  it("refuses a batch over http.maxBatchMessages, and prefixes a message's error with its place", () => {
    const publisher = new InProcessPublisher(parser, scriptedIntake().intake, NO_CANCELLER);
    expect(() => publisher.publishBatch([message(), message(), message()])).toThrow('A batch may contain at most 2 messages, got 3');
    expect(() => publisher.publishBatch([message(), message({ topic: '__x' })])).toThrow(/^messages\[1\]: /);
    expect(() => publisher.publishBatch([])).toThrow('A batch must contain at least one message');
  });

  it('commits publishes in the order they were called, even when the first one waits for its place', async () => {
    const { intake, enqueued, places } = scriptedIntake();
    const publisher = new InProcessPublisher(parser, intake, NO_CANCELLER);
    const first = publisher.publishBatch([message({ id: 'a' }), message({ id: 'b' })]);
    const second = publisher.publish(message({ id: 'c' }));
    await new Promise((resolve) => setImmediate(resolve));
    // The first has not got its place yet (a new topic's subscriptions attaching): the second waits behind it.
    expect(enqueued.map((messages) => messages.map((m) => m.id))).toEqual([['a', 'b']]);
    places[0]();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(enqueued.map((messages) => messages.map((m) => m.id))).toEqual([['a', 'b'], ['c']]);
    places[1]();
    await expect(second).resolves.toMatchObject({ id: 'c' });
  });
});
