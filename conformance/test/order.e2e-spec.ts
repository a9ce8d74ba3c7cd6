import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered, numbers } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

const MESSAGES = 30;

function ledgerListener(journal: Journal, pattern: string, consumerId: string, failOnce: Set<number>) {
  @Injectable()
  class LedgerListener {
    @MMMQListener(pattern, { consumerId, concurrency: 1 })
    onEntry(content: Numbered, context: MessageContext): void {
      const handling = journal.start('consumer', content, context);
      if (failOnce.delete(content.n)) throw new Error(`entry ${content.n} failed once`);
      journal.finish(handling);
    }
  }
  return LedgerListener;
}

describe.each(TRANSPORTS)('order per subscription on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  it('hands one consumer with concurrency 1 the messages of a topic in publish order', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    await harness.consumer(names.id, [ledgerListener(journal, names.topic('ledger', '*'), names.consumerId('ledger'), new Set())]);

    const producer = await harness.producer();
    for (const n of numbers(MESSAGES)) await producer.produce(names.topic('ledger', 'entry'), { n });

    await waitFor(() => journal.finished.length >= MESSAGES, { message: () => `${MESSAGES} messages, got ${journal.finished.length}` });
    expect(journal.finishedNumbers()).toEqual(numbers(MESSAGES));
  });

  it('keeps publish order across a retry only where the transport promises it', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const failing = 3;
    await harness.consumer(names.id, [ledgerListener(journal, names.topic('ledger', '*'), names.consumerId('ledger'), new Set([failing]))]);

    const producer = await harness.producer();
    for (const n of numbers(10)) await producer.produce(names.topic('ledger', 'entry'), { n });

    await waitFor(() => journal.finished.length >= 10, { message: () => `10 messages, got ${JSON.stringify(journal.started)}` });
    expect(journal.distinctFinished()).toEqual(numbers(10));
    // Every first delivery comes in publish order, and the failed message comes back exactly once.
    expect(journal.started.filter(({ deliveryCount }) => deliveryCount === 1).map(({ n }) => n)).toEqual(numbers(10));
    expect(journal.started.filter(({ n }) => n === failing).map(({ deliveryCount }) => deliveryCount)).toEqual([1, 2]);
    if (transport.exceptions.orderAcrossRetries) {
      // MMMQ and RabbitMQ (exceptions.orderAcrossRetries): later messages may be handled before the retry, the rest in order.
      expect(journal.finishedNumbers().filter((n) => n !== failing)).toEqual(numbers(10).filter((n) => n !== failing));
    } else {
      // In-memory: a retry is delivered before the next message.
      expect(journal.finishedNumbers()).toEqual(numbers(10));
    }
  });
});
