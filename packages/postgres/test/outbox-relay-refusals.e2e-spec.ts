import { waitFor } from '@mmmq/test-support';
import { acknowledged, FakeAnswer, FakeBroker, ReceivedMessage, refused, startFakeBroker } from './support/fake-broker';
import { addCommitted, outboxRows, testRelay, useOutboxTable } from './support/outbox-fixtures';

describe('OutboxRelay when the broker refuses a publish', () => {
  const table = useOutboxTable();

  async function fakeBroker(answer: (messages: ReceivedMessage[]) => FakeAnswer): Promise<FakeBroker> {
    const broker = await startFakeBroker(answer);
    table.closeAfterTest(broker);
    return broker;
  }

  function relayTo(broker: FakeBroker) {
    const relay = testRelay(table.db, broker.url);
    table.closeAfterTest(relay);
    return relay;
  }

  const three = (prefix: string) =>
    addCommitted(table.db, [
      { topic: 'refusal.a', content: 1, id: `${prefix}-1` },
      { topic: 'refusal.a', content: 2, id: `${prefix}-2` },
      { topic: 'refusal.a', content: 3, id: `${prefix}-3` },
    ]);

  it.each([
    [401, 'no token, or an unknown one'],
    [403, 'the token lacks the publish role'],
    [404, 'Cannot POST /mmmq/messages/batch'],
  ])(
    'keeps the rows AMBIGUOUS on %i (a set-up problem, not a bad row), sends the batch once, and publishes them once it is fixed',
    async (status, message) => {
      let answer: (messages: ReceivedMessage[]) => FakeAnswer = () => refused(status, message);
      const broker = await fakeBroker((messages) => answer(messages));
      await three(`refused-${status}`);
      const relay = relayTo(broker);

      expect(await relay.relayOnce()).toMatchObject({ leased: 3, published: 0, ambiguous: 3, failed: 0 });

      const rows = await outboxRows(table.db);
      expect(rows.map((row) => row.status)).toEqual(['AMBIGUOUS', 'AMBIGUOUS', 'AMBIGUOUS']);
      expect(rows[0].failure_reason).toContain(String(status));
      // Not retried row by row: every row would be refused the same way.
      expect(broker.batches.map((batch) => batch.length)).toEqual([3]);

      answer = acknowledged;
      // Each row has its own jittered backoff, so they may come due in different rounds.
      await waitFor(
        async () => {
          await relay.relayOnce();
          return (await outboxRows(table.db)).every((row) => row.status === 'PUBLISHED');
        },
        { message: 'the AMBIGUOUS rows to be published' },
      );
    },
  );

  it.each([
    [400, 'messages[1]: headers must be an object'],
    [409, 'topic refusal.a differs from an existing topic only in letter case'],
    [413, 'request body larger than http.maxBodyBytes'],
    [415, 'Content-Type must be application/json'],
  ])('marks only the row the broker refuses with %i FAILED, and publishes the rest of the batch', async (status, message) => {
    const bad = `bad-${status}-2`;
    const broker = await fakeBroker((messages) =>
      messages.some(({ id }) => id === bad) ? refused(status, message) : acknowledged(messages),
    );
    await three(`bad-${status}`);
    const relay = relayTo(broker);

    expect(await relay.relayOnce()).toMatchObject({ leased: 3, published: 2, ambiguous: 0, failed: 1 });

    const rows = await outboxRows(table.db);
    expect(rows.map((row) => row.status)).toEqual(['PUBLISHED', 'FAILED', 'PUBLISHED']);
    expect(rows[1].failure_reason).toContain(`refused by the broker with ${status}`);
    // The batch first, then each row on its own.
    expect(broker.batches.map((batch) => batch.length)).toEqual([3, 1, 1, 1]);
  });
});
