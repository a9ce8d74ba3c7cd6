import { DeadLetterHeaders } from '@mmmq/core';
import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

/** Attempts before a dead letter on every transport by default: 1 delivery + 3 NACK retries. */
const ATTEMPTS = 4;

function paymentListener(journal: Journal, pattern: string, consumerId: string) {
  @Injectable()
  class PaymentListener {
    @MMMQListener(pattern, { consumerId })
    onPayment(content: Numbered, context: MessageContext): void {
      const handling = journal.start('consumer', content, context);
      if (content.n === 1) throw new Error(`payment gateway timed out for ${content.n}`);
      journal.finish(handling);
    }
  }
  return PaymentListener;
}

describe.each(TRANSPORTS)('NACK, retries and dead letters on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  it('redelivers a message whose handler throws with a growing deliveryCount, then dead-letters it with reason NACK; others flow', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const consumerId = names.consumerId('payments');
    await harness.consumer(names.id, [paymentListener(journal, names.topic('payment', '*'), consumerId)]);

    const producer = await harness.producer();
    const topic = names.topic('payment', 'captured');
    const ids: string[] = [];
    for (const n of [0, 1, 2]) ids.push((await producer.produce(topic, { n })).id);

    const deadLetters = () => harness.session.deadLetters(consumerId);
    await waitFor(async () => (await deadLetters()).length > 0, {
      message: () => `a dead letter; handled ${JSON.stringify(journal.started)}`,
    });
    await waitFor(() => journal.finishedNumbers().length === 2, { message: 'the messages around the failing one' });

    const attempts = journal.started.filter(({ n }) => n === 1);
    expect(attempts.map(({ deliveryCount, redelivered, id }) => ({ deliveryCount, redelivered, id }))).toEqual(
      [1, 2, 3, 4].map((deliveryCount) => ({ deliveryCount, redelivered: deliveryCount > 1, id: ids[1] })),
    );
    expect(journal.finishedNumbers().sort()).toEqual([0, 2]);
    const letters = await deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0].content).toEqual({ n: 1 });
    expect(letters[0].headers).toMatchObject({
      [DeadLetterHeaders.REASON]: 'NACK',
      [DeadLetterHeaders.ORIGINAL_TOPIC]: topic,
      [DeadLetterHeaders.ORIGINAL_ID]: ids[1],
      [DeadLetterHeaders.CONSUMER_ID]: consumerId,
      [DeadLetterHeaders.LAST_ERROR]: 'payment gateway timed out for 1',
    });
    expect(Number(letters[0].headers[DeadLetterHeaders.ATTEMPTS])).toBe(ATTEMPTS);
  });
});
