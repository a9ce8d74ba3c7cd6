import { DeadLetterHeaders } from '@mmmq/core';
import { InMemoryBroker, InMemoryDeadLetter } from '@mmmq/core/testing';
import { DynamicModule, Module } from '@nestjs/common';
import type { TransportSession, TransportUnderTest } from './transport-under-test';

/**
 * The in-memory broker of `@mmmq/core/testing`, one per session, shared by every application of the session
 * (`MmmqTestingModule` gives each application a broker of its own, so the harness provides this one the same way).
 */
export const inMemoryTransport: TransportUnderTest = {
  name: 'in-memory',
  start: startInMemorySession,
  exceptions: {
    competingConsumers:
      'one subscription per consumer id: a second application subscribing with the same consumer id replaces the first ' +
      '(InMemoryBroker.subscribe), so the last one started receives everything',
    brokerRestart: 'it lives in the test process: there is nothing to restart, and a new in-memory broker starts empty',
  },
};

async function startInMemorySession(): Promise<TransportSession> {
  const broker = new InMemoryBroker();
  return {
    producerOptions: () => ({}),
    consumerOptions: () => ({}),
    imports: () => [sharedBroker(broker)],
    ready: async () => undefined,
    deadLetters: async (consumerId) => broker.deadLetters(consumerId).map(asDeadLetter),
    close: async () => undefined,
  };
}

@Module({})
class SharedInMemoryBrokerModule {}

function sharedBroker(broker: InMemoryBroker): DynamicModule {
  return {
    module: SharedInMemoryBrokerModule,
    global: true,
    providers: [{ provide: InMemoryBroker, useValue: broker }],
    exports: [InMemoryBroker],
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
