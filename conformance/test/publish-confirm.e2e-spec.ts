import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

function orderListener(journal: Journal, pattern: string, consumerId: string) {
  @Injectable()
  class OrderListener {
    @MMMQListener(pattern, { consumerId })
    onOrder(content: Numbered, context: MessageContext): void {
      journal.finish(journal.start('consumer', content, context));
    }
  }
  return OrderListener;
}

describe.each(TRANSPORTS)('publish and confirm on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  it('resolves produce() and produceBatch() once the transport holds the messages, and delivers them under the confirmed ids', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const topic = names.topic('order', 'created');
    await harness.consumer(names.id, [orderListener(journal, names.topic('order', '*'), names.consumerId('orders'))]);

    const producer = await harness.producer();
    const single = await producer.produce(topic, { n: 0 });
    const batch = await producer.produceBatch([
      { topic, content: { n: 1 } },
      { topic, content: { n: 2 }, id: `${names.id}-given-id` },
    ]);
    for (const confirmed of [single, ...batch]) {
      expect(confirmed).toMatchObject({ id: expect.any(String), topic, deliveryMode: 'persistent' });
    }
    expect(batch[1].id).toBe(`${names.id}-given-id`);

    await waitFor(() => journal.finished.length === 3, { message: () => `3 messages, got ${JSON.stringify(journal.finished)}` });
    expect(journal.finished.map(({ n, id }) => ({ n, id }))).toEqual([single, ...batch].map(({ id }, n) => ({ n, id })));
  });

  it('holds the messages confirmed while a subscription has no consumer running, and delivers them to the next instance', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const consumerId = names.consumerId('orders');
    const Listener = orderListener(journal, names.topic('order', '*'), consumerId);
    await (await harness.consumer(names.id, [Listener])).close();

    const producer = await harness.producer();
    for (const n of [0, 1, 2]) await producer.produce(names.topic('order', 'created'), { n });

    await harness.consumer(names.id, [Listener]);
    await waitFor(() => journal.finished.length === 3, { message: () => `3 messages, got ${JSON.stringify(journal.finished)}` });
    expect(journal.finishedNumbers()).toEqual([0, 1, 2]);
    expect(await harness.session.deadLetters(consumerId)).toEqual([]);
  });

  it('delivers a message published before any consumer subscribed to its topic to a later subscriber, where the transport keeps it', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const producer = await harness.producer();
    const early = await producer.produce(names.topic('order', 'created'), { n: 0 });
    expect(early).toMatchObject({ deliveryMode: 'persistent' });

    await harness.consumer(names.id, [orderListener(journal, names.topic('order', '*'), names.consumerId('orders'))]);
    await producer.produce(names.topic('order', 'created'), { n: 1 });
    await waitFor(() => journal.finishedNumbers().includes(1), { message: 'the message published after subscribing' });
    if (transport.exceptions.publishBeforeSubscription) {
      // RabbitMQ: routed to the queues bound at publish time, and there were none (exceptions.publishBeforeSubscription).
      expect(journal.finishedNumbers()).toEqual([1]);
    } else {
      // MMMQ and in-memory keep every topic's messages; a new subscription starts at its first one (startFrom earliest).
      await waitFor(() => journal.finishedNumbers().includes(0), { message: 'the message published before subscribing' });
      expect(journal.finishedNumbers().sort()).toEqual([0, 1]);
    }
  });
});
