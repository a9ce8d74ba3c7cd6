import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered, numbers } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

function paymentListener(journal: Journal, instance: string, pattern: string, consumerId: string) {
  @Injectable()
  class PaymentListener {
    @MMMQListener(pattern, { consumerId })
    onPayment(content: Numbered, context: MessageContext): void {
      journal.finish(journal.start(instance, content, context));
    }
  }
  return PaymentListener;
}

describe.each(TRANSPORTS)('fan-out on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  it('gives every message to each of several consumer ids', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const pattern = names.topic('payment', '*');
    const subscribers = ['billing', 'audit', 'mailer'];
    for (const name of subscribers) {
      await harness.consumer(`${names.id}-${name}`, [paymentListener(journal, name, pattern, names.consumerId(name))]);
    }

    const producer = await harness.producer();
    for (const n of numbers(10)) await producer.produce(names.topic('payment', n % 2 ? 'captured' : 'refunded'), { n });

    await waitFor(() => journal.finished.length >= 30, { message: () => `30 handlings, got ${journal.finished.length}` });
    for (const name of subscribers) expect(journal.finishedNumbers(name).sort((a, b) => a - b)).toEqual(numbers(10));
  });
});
