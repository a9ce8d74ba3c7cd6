import { MMMQListener } from '@mmmq/consumer';
import { MessageRejectedError } from '@mmmq/producer';
import { waitFor } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

/** Long enough to tell "at its time" from "at once", short enough to wait for. */
const DELAY_MS = 800;

function reminderListener(received: Array<{ n: number; at: number }>, pattern: string, consumerId: string) {
  @Injectable()
  class ReminderListener {
    @MMMQListener(pattern, { consumerId })
    onReminder(content: { n: number }): void {
      received.push({ n: content.n, at: Date.now() });
    }
  }
  return ReminderListener;
}

describe.each(TRANSPORTS)('scheduled messages (delayMs, deliverAt) on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  const refused = transport.exceptions.scheduledMessages;

  const delivers = async () => {
    const names = uniqueNames();
    const received: Array<{ n: number; at: number }> = [];
    await harness.consumer(names.id, [reminderListener(received, names.topic('reminder', '*'), names.consumerId('reminders'))]);
    const producer = await harness.producer();
    const topic = names.topic('reminder', 'due');
    const sentAt = Date.now();
    await producer.produce(topic, { n: 0 }, { delayMs: DELAY_MS });
    await producer.produce(topic, { n: 1 }, { deliverAt: new Date(sentAt + DELAY_MS / 2) });
    await producer.produce(topic, { n: 2 });
    await waitFor(() => received.length === 3, { message: () => `3 messages, got ${JSON.stringify(received)}` });
    expect(received.map(({ n }) => n)).toEqual([2, 1, 0]);
    expect(received[1].at).toBeGreaterThanOrEqual(sentAt + DELAY_MS / 2);
    expect(received[2].at).toBeGreaterThanOrEqual(sentAt + DELAY_MS);
  };

  const refuses = async () => {
    const names = uniqueNames();
    const received: Array<{ n: number; at: number }> = [];
    await harness.consumer(names.id, [reminderListener(received, names.topic('reminder', '*'), names.consumerId('reminders'))]);
    const producer = await harness.producer();
    const topic = names.topic('reminder', 'due');
    const error = await producer.produce(topic, { n: 0 }, { delayMs: DELAY_MS }).catch((caught: unknown) => caught);
    // The transport's ScheduledMessagesUnsupportedError, reported as a refusal (400): not retried.
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect((error as MessageRejectedError).status).toBe(400);
    expect((error as Error).message).toContain('Scheduled messages (delayMs / deliverAt) are not supported');
    await expect(producer.produceBatch([{ topic, content: { n: 1 }, deliverAt: new Date(Date.now() + DELAY_MS) }])).rejects.toThrow(
      'Scheduled messages',
    );
    await producer.produce(topic, { n: 2 }, { delayMs: 0 });
    await waitFor(() => received.length === 1, { message: () => `the message not scheduled, got ${JSON.stringify(received)}` });
    expect(received.map(({ n }) => n)).toEqual([2]);
  };

  // One test per transport: where the transport cannot schedule, its exception is what is asserted.
  it(
    refused
      ? `refuses a scheduled publish, naming the feature, and delivers nothing early (exception: ${refused})`
      : 'delivers a scheduled message at or after its time, and the others at once',
    refused ? refuses : delivers,
  );
});
