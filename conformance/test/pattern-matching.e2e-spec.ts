import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { expectQuiet, waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

function topicListener(journal: Journal, instance: string, pattern: string, consumerId: string) {
  @Injectable()
  class TopicListener {
    @MMMQListener(pattern, { consumerId })
    onMessage(content: Numbered, context: MessageContext): void {
      journal.finish(journal.start(instance, content, context));
    }
  }
  return TopicListener;
}

describe.each(TRANSPORTS)('pattern matching on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  it('delivers `*` one segment, `**` any number of segments and a literal pattern only its topic; nothing else', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const listeners = {
      oneSegment: names.topic('order', '*'),
      anySegments: names.topic('order', '**'),
      literal: names.topic('order', 'created'),
    };
    for (const [name, pattern] of Object.entries(listeners)) {
      await harness.consumer(`${names.id}-${name}`, [topicListener(journal, name, pattern, names.consumerId(name))]);
    }

    const producer = await harness.producer();
    const topics = [
      names.topic('order', 'created'), // 0: all three
      names.topic('order', 'created', 'eu'), // 1: `**` only
      names.topic('order', 'cancelled'), // 2: `*` and `**`
      names.topic('orders', 'created'), // 3: none (another segment)
      names.topic('invoice', 'created'), // 4: none
      names.topic('order', 'a', 'b', 'c'), // 5: `**` only
    ];
    for (const [n, topic] of topics.entries()) await producer.produce(topic, { n });
    // A last message every listener gets: once it is in, the earlier ones (published before it) are settled too.
    await producer.produce(names.topic('order', 'created'), { n: 6 });

    const expected = { oneSegment: [0, 2, 6], anySegments: [0, 1, 2, 5, 6], literal: [0, 6] };
    const total = Object.values(expected).flat().length;
    await waitFor(() => journal.finished.length >= total, { message: () => `${total} handlings, got ${JSON.stringify(journal.finished)}` });
    await expectQuiet(journal.finished, { forMs: 200, message: 'a message no pattern matches' });
    for (const [name, ns] of Object.entries(expected)) expect([name, journal.finishedNumbers(name).sort()]).toEqual([name, ns]);
  });
});
