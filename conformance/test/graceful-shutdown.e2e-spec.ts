import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { expectQuiet, flushPromises, Gate, waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered, numbers } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

const MESSAGES = 6;

/** Holds message 0 in its handler until the test opens the gate. */
function shippingListener(journal: Journal, instance: string, pattern: string, consumerId: string, gate: Gate) {
  @Injectable()
  class ShippingListener {
    @MMMQListener(pattern, { consumerId, concurrency: 1 })
    async onOrder(content: Numbered, context: MessageContext): Promise<void> {
      const handling = journal.start(instance, content, context);
      if (content.n === 0) await gate.promise;
      journal.finish(handling);
    }
  }
  return ShippingListener;
}

describe.each(TRANSPORTS)('graceful shutdown on $name', (transport) => {
  let harness: ConformanceHarness;
  const gate = new Gate();

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(async () => {
    gate.open();
    await harness?.close();
  });

  it('lets a running handler finish and settle, redelivers nothing it settled, and hands everything unhandled to the next instance', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const pattern = names.topic('order', '*');
    const consumerId = names.consumerId('shipping');
    const first = await harness.consumer(names.id, [shippingListener(journal, 'first', pattern, consumerId, gate)], {
      shutdownTimeoutMs: 60_000,
    });

    const producer = await harness.producer();
    const topic = names.topic('order', 'created');
    await producer.produce(topic, { n: 0 });
    await waitFor(() => journal.started.some(({ n }) => n === 0), { message: 'the handler of message 0 to start' });
    for (const n of numbers(MESSAGES).slice(1, 3)) await producer.produce(topic, { n });

    let closed = false;
    const closing = first.close().then(() => (closed = true));
    for (const n of numbers(MESSAGES).slice(3)) await producer.produce(topic, { n });
    await flushPromises();
    expect(closed).toBe(false);

    gate.open();
    await closing;
    expect(journal.finishedNumbers('first')).toContain(0);

    await harness.consumer(names.id, [shippingListener(journal, 'second', pattern, consumerId, gate)]);
    await waitFor(() => journal.distinctFinished().length === MESSAGES, {
      message: () => `every message, got ${JSON.stringify(journal.finished)}`,
    });
    await expectQuiet(journal.finished, { forMs: 300, message: 'a settled message delivered again' });
    // Each message handled once: the one finished during shutdown was settled, the others went to the next instance.
    expect(journal.finishedNumbers().sort((a, b) => a - b)).toEqual(numbers(MESSAGES));
    expect(journal.started.filter(({ n }) => n === 0)).toHaveLength(1);
    expect(await harness.session.deadLetters(consumerId)).toEqual([]);
  });
});
