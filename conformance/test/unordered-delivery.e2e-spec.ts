import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered, numbers } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

const MESSAGES = 40;
const KEYS = 4;
const keyOf = (n: number) => `account-${n % KEYS}`;

function auditListener(journal: Journal, pattern: string, consumerId: string) {
  @Injectable()
  class AuditListener {
    @MMMQListener(pattern, { consumerId, ordered: false, concurrency: 8 })
    async onEntry(content: Numbered, context: MessageContext): Promise<void> {
      const handling = journal.start(String(context.headers['mmmq-ordering-key']), content, context);
      await new Promise((resolve) => setTimeout(resolve, 5));
      journal.finish(handling);
    }
  }
  return AuditListener;
}

describe.each(TRANSPORTS)('unordered delivery (ordered: false) on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  const refused = transport.exceptions.unordered;

  const keepsPerKeyOrder = async () => {
    const names = uniqueNames();
    const journal = new Journal();
    await harness.consumer(names.id, [auditListener(journal, names.topic('audit', '*'), names.consumerId('audit'))]);
    const producer = await harness.producer();
    const topic = names.topic('audit', 'entry');
    for (const n of numbers(MESSAGES)) await producer.produce(topic, { n }, { headers: { 'mmmq-ordering-key': keyOf(n) } });

    await waitFor(() => journal.finished.length >= MESSAGES, { message: () => `${MESSAGES} handlings, got ${journal.finished.length}` });
    expect(journal.distinctFinished()).toEqual(numbers(MESSAGES));
    // Journaled under its key as the instance: each key's messages finish in publish order.
    for (let k = 0; k < KEYS; k++) {
      expect(journal.finishedNumbers(keyOf(k))).toEqual(numbers(MESSAGES).filter((n) => keyOf(n) === keyOf(k)));
    }
  };

  const refusesAtBootstrap = async () => {
    const names = uniqueNames();
    const listener = auditListener(new Journal(), names.topic('audit', '*'), names.consumerId('audit'));
    const error = await harness.consumer(names.id, [listener]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/ordered: false/);
  };

  // Where the transport has no ordering keys to keep, its exception is what is asserted.
  it(
    refused
      ? `refuses a listener with ordered: false at bootstrap, naming it (exception: ${refused})`
      : 'delivers every message once, each ordering key in publish order, with pushes handled at once',
    refused ? refusesAtBootstrap : keepsPerKeyOrder,
    60_000,
  );
});
