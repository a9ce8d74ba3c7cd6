import { MmmqConsumerHealthIndicator } from '@mmmq/consumer';
import { BrokerApp, FAST_BACKOFF, freePort, makeTempDir, removeTempDir, startBroker, waitFor } from '@mmmq/test-support';
import type { TransportSession, TransportUnderTest } from './transport-under-test';

/**
 * The built-in transport: a real broker (a Nest app over a temporary data directory, on a port fixed for the
 * session so that a restart keeps its URL), producers over HTTP, consumers that register their dispatchers and
 * receive pushes over HTTP.
 */
export const mmmqTransport: TransportUnderTest = {
  name: 'mmmq',
  start: startMmmqSession,
  exceptions: {
    orderAcrossRetries:
      'a NACKed message is pushed again after the pushes already on their way (deliveryMaxInFlight), so later messages ' +
      'may be handled before its retry; messages that are not retried keep their order',
  },
};

async function startMmmqSession(): Promise<TransportSession> {
  const rootDir = await makeTempDir('mmmq-conformance-');
  const port = await freePort();
  // Quick redelivery after a refused push (503 during a consumer's shutdown): the suite is not about backoff.
  const launch = () => startBroker({ delivery: FAST_BACKOFF, persistence: { rootDir } }, { port });
  let broker: BrokerApp = await launch();
  let closed: Promise<void> | undefined;
  return {
    producerOptions: () => ({ broker: broker.url }),
    consumerOptions: (url) => ({ broker: broker.url, advertisedUrl: url, registration: { backoffMs: 50 } }),
    imports: () => [],
    async ready(app) {
      const health = app.get(MmmqConsumerHealthIndicator);
      await waitFor(() => health.check().status === 'up', { message: () => `dispatchers registered: ${JSON.stringify(health.check())}` });
    },
    async deadLetters(consumerId) {
      const letters = await broker.deadLetters(consumerId);
      return letters.map(({ content, headers }: { content: unknown; headers: Record<string, unknown> }) => ({ content, headers }));
    },
    async restart() {
      await broker.close();
      broker = await launch();
    },
    close() {
      closed ??= (async () => {
        await broker.close();
        await removeTempDir(rootDir);
      })();
      return closed;
    },
  };
}
