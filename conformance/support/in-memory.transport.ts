import { DeadLetterHeaders } from '@mmmq/core';
import { InMemoryBroker, InMemoryDeadLetter, InMemoryTransport } from '@mmmq/core/testing';
import type { TransportSession, TransportUnderTest } from './transport-under-test';

/** `InMemoryTransport` of `@mmmq/core/testing` over one in-memory broker per session, shared by its applications. */
export const inMemoryTransport: TransportUnderTest = {
  name: 'in-memory',
  start: startInMemorySession,
  exceptions: {
    scheduledMessages: 'it has no timers of its own: a publish with delayMs / deliverAt is refused (ScheduledMessagesUnsupportedError)',
    brokerRestart: 'it lives in the test process: there is nothing to restart, and a new in-memory broker starts empty',
    activeMembers:
      "it shares a consumer id's messages among all its listeners and keeps no roster: a listener with maxActiveMembers " +
      'or maxMembers fails bootstrap, naming them',
    unordered:
      'it delivers in order and keeps no ordering keys, so unordered delivery could not keep per-key order: a listener ' +
      'with ordered: false fails bootstrap, naming it',
  },
};

async function startInMemorySession(): Promise<TransportSession> {
  const broker = new InMemoryBroker();
  const transport = new InMemoryTransport(broker);
  return {
    producerOptions: () => ({ transport }),
    consumerOptions: () => ({ transport }),
    imports: () => [],
    ready: async () => undefined,
    deadLetters: async (consumerId) => broker.deadLetters(consumerId).map(asDeadLetter),
    close: async () => undefined,
  };
}

/** The in-memory broker keeps the dead-letter facts as fields; the other transports carry them as headers. */
function asDeadLetter(letter: InMemoryDeadLetter): { content: unknown; headers: Record<string, unknown> } {
  return {
    content: letter.content,
    headers: {
      ...letter.headers,
      [DeadLetterHeaders.ORIGINAL_TOPIC]: letter.topic,
      [DeadLetterHeaders.ORIGINAL_OFFSET]: letter.offset,
      [DeadLetterHeaders.ORIGINAL_ID]: letter.id,
      [DeadLetterHeaders.CONSUMER_ID]: letter.consumerId,
      [DeadLetterHeaders.ATTEMPTS]: letter.attempts,
      [DeadLetterHeaders.REASON]: letter.reason,
      [DeadLetterHeaders.LAST_ERROR]: letter.lastError,
    },
  };
}
