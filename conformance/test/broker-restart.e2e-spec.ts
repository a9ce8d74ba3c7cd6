import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { flushPromises, Gate, waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered, numbers } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

/**
 * A RabbitMQ node of the file's own boots in ~5 s here (twice per test with its restart), more on a busy machine:
 * the node's own start deadline (DEFAULT_RABBITMQ_START_TIMEOUT_MS) bounds that, not jest's default 30 s.
 */
const RESTART_TIMEOUT_MS = 120_000;

/** Enough retries to ride out a restart (the same producer options on every transport). */
const PATIENT_PRODUCER = { maxRetryCount: 50, retryDelayMs: 50, maxRetryDelayMs: 200 };

function stockListener(journal: Journal, pattern: string, consumerId: string, gates: Map<number, Gate>) {
  @Injectable()
  class StockListener {
    @MMMQListener(pattern, { consumerId })
    async onStock(content: Numbered, context: MessageContext): Promise<void> {
      const handling = journal.start('consumer', content, context);
      await gates.get(content.n)?.promise;
      journal.finish(handling);
    }
  }
  return StockListener;
}

describe.each(TRANSPORTS)('at-least-once across a broker restart on $name', (transport) => {
  let harness: ConformanceHarness;
  const gates = new Map<number, Gate>();

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport, { restartable: true });
  }, RESTART_TIMEOUT_MS);
  afterAll(async () => {
    for (const gate of gates.values()) gate.open();
    await harness?.close();
  }, RESTART_TIMEOUT_MS);

  if (transport.exceptions.brokerRestart) {
    it(`has no broker restart to survive: ${transport.exceptions.brokerRestart}`, () => {
      // In-memory (exceptions.brokerRestart): the session offers no restart, and says why.
      expect(harness.session.restart).toBeUndefined();
    });
    return;
  }

  it(
    'delivers every message confirmed before the restart or while it ran, to a consumer that was down meanwhile',
    async () => {
      const names = uniqueNames();
      const journal = new Journal();
      const Listener = stockListener(journal, names.topic('stock', '*'), names.consumerId('stock'), gates);
      await (await harness.consumer(names.id, [Listener])).close();

      const producer = await harness.producer(PATIENT_PRODUCER);
      const topic = names.topic('stock', 'moved');
      for (const n of numbers(5)) await producer.produce(topic, { n });
      const restarting = harness.session.restart!();
      // Sent while the broker goes down: the producer retries with the same id until it is confirmed.
      const during = producer.produce(topic, { n: 5 });
      await restarting;
      await during;

      await harness.consumer(names.id, [Listener]);
      await waitFor(() => journal.distinctFinished().length === 6, {
        message: () => `6 messages, got ${JSON.stringify(journal.finished)}`,
      });
      expect(journal.distinctFinished()).toEqual(numbers(6));
    },
    RESTART_TIMEOUT_MS,
  );

  it(
    'keeps delivering to a running consumer across a restart; a message in flight at the restart is handled at least once',
    async () => {
      const names = uniqueNames();
      const journal = new Journal();
      const consumerId = names.consumerId('stock');
      await harness.consumer(names.id, [stockListener(journal, names.topic('stock', '*'), consumerId, gates)]);

      const producer = await harness.producer(PATIENT_PRODUCER);
      const topic = names.topic('stock', 'moved');
      for (const n of numbers(3)) await producer.produce(topic, { n });
      await waitFor(() => journal.distinctFinished().length === 3, { message: 'the messages before the restart' });
      const gate = new Gate();
      gates.set(3, gate);
      await producer.produce(topic, { n: 3 });
      await waitFor(() => journal.started.some(({ n }) => n === 3), { message: 'message 3 in its handler' });

      const restarting = harness.session.restart!();
      await flushPromises();
      gate.open();
      await restarting;
      for (const n of numbers(7).slice(4)) await producer.produce(topic, { n });

      await waitFor(() => journal.distinctFinished().length === 7, {
        message: () => `7 messages, got ${JSON.stringify(journal.finished)}`,
      });
      expect(journal.distinctFinished()).toEqual(numbers(7));
      expect(await harness.session.deadLetters(consumerId)).toEqual([]);
    },
    RESTART_TIMEOUT_MS,
  );
});
