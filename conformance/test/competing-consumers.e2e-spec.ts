import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { expectQuiet, waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered, numbers } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

function workListener(journal: Journal, instance: string, pattern: string, consumerId: string) {
  @Injectable()
  class WorkListener {
    @MMMQListener(pattern, { consumerId })
    onJob(content: Numbered, context: MessageContext): void {
      journal.finish(journal.start(instance, content, context));
    }
  }
  return WorkListener;
}

const MESSAGES = 40;

describe.each(TRANSPORTS)('competing consumers on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  it('shares the messages of one consumer id between two application instances, each message handled once', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const pattern = names.topic('job', '*');
    const consumerId = names.consumerId('workers');
    // Two instances of one application: the same listener code, the same consumer id.
    await harness.consumer(names.id, [workListener(journal, 'first', pattern, consumerId)]);
    await harness.consumer(names.id, [workListener(journal, 'second', pattern, consumerId)]);

    const producer = await harness.producer();
    for (const n of numbers(MESSAGES)) await producer.produce(names.topic('job', 'queued'), { n });

    await waitFor(() => journal.finished.length >= MESSAGES, { message: () => `${MESSAGES} handlings, got ${journal.finished.length}` });
    await expectQuiet(journal.finished, { forMs: 200, message: 'a message handled twice' });
    expect(journal.finishedNumbers().sort((a, b) => a - b)).toEqual(numbers(MESSAGES));
    const shares = { first: journal.finishedNumbers('first').length, second: journal.finishedNumbers('second').length };
    expect(shares.first).toBeGreaterThan(0);
    expect(shares.second).toBeGreaterThan(0);
  });
});
