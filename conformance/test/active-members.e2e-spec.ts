import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered, numbers } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

function workListener(journal: Journal, instance: string, pattern: string, consumerId: string) {
  @Injectable()
  class WorkListener {
    @MMMQListener(pattern, { consumerId, maxActiveMembers: 2, maxMembers: 3 })
    onJob(content: Numbered, context: MessageContext): void {
      journal.finish(journal.start(instance, content, context));
    }
  }
  return WorkListener;
}

const MESSAGES = 30;

describe.each(TRANSPORTS)('maxActiveMembers and maxMembers on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  const refused = transport.exceptions.activeMembers;

  const receivesOnTheFirstTwo = async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const pattern = names.topic('job', '*');
    const consumerId = names.consumerId('workers');
    // Started one after the other: that is the join order.
    const first = await harness.consumer(names.id, [workListener(journal, 'first', pattern, consumerId)]);
    await harness.consumer(names.id, [workListener(journal, 'second', pattern, consumerId)]);
    await harness.consumer(names.id, [workListener(journal, 'third', pattern, consumerId)]);
    const producer = await harness.producer();
    const topic = names.topic('job', 'queued');
    for (const n of numbers(MESSAGES)) await producer.produce(topic, { n });
    await waitFor(() => journal.finished.length >= MESSAGES, { message: () => `${MESSAGES} handlings, got ${journal.finished.length}` });
    expect(journal.finishedNumbers('third')).toEqual([]);

    // The first leaves: the third, the only backup, takes its place.
    await first.close();
    for (const n of numbers(MESSAGES)) await producer.produce(topic, { n: MESSAGES + n });
    await waitFor(() => journal.finished.length >= 2 * MESSAGES, {
      message: () => `${2 * MESSAGES} handlings, got ${journal.finished.length}`,
    });
    expect(journal.finishedNumbers('third').length).toBeGreaterThan(0);
    expect(journal.finishedNumbers('first').every((n) => n < MESSAGES)).toBe(true);
  };

  const refusesAtBootstrap = async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const listener = workListener(journal, 'only', names.topic('job', '*'), names.consumerId('workers'));
    const error = await harness.consumer(names.id, [listener]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/maxActiveMembers 2/);
    expect((error as Error).message).toMatch(/maxMembers 3/);
  };

  // Where the transport cannot keep N active members and backups, its exception is what is asserted.
  it(
    refused
      ? `refuses a listener with maxActiveMembers or maxMembers at bootstrap, naming them (exception: ${refused})`
      : 'lets the first two of three instances receive; when one leaves, the third takes its place',
    refused ? refusesAtBootstrap : receivesOnTheFirstTwo,
    60_000,
  );
});
