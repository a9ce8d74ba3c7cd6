import type { INestApplicationContext, Provider } from '@nestjs/common';
import { MmmqConsumerHealthIndicator, MmmqConsumerModule, MmmqConsumerOptions } from '../../src';
import type { BrokerApp } from './broker-app';
import { ConsumerApp, freePort, startConsumer } from './consumer-app';
import { waitFor } from './wait-for';

/**
 * A consumer application that registers its listeners with `broker`, as users run it; resolves once they are.
 * `port` (default: a free one) is fixed up front because the advertised URL must be known before listening.
 */
export async function startRegisteredConsumer(
  broker: BrokerApp,
  providers: Provider[],
  options: MmmqConsumerOptions = {},
  port?: number,
): Promise<ConsumerApp> {
  const listenOn = port ?? (await freePort());
  const module = MmmqConsumerModule.forRoot({
    app: 'billing',
    broker: broker.url,
    advertisedUrl: `http://127.0.0.1:${listenOn}`,
    registration: { backoffMs: 50 },
    ...options,
  });
  const consumer = await startConsumer({ imports: [module], providers }, { port: listenOn });
  await registered(consumer.app);
  return consumer;
}

/** Resolves once every listener's dispatcher is registered (registration runs in the background). */
export async function registered(app: INestApplicationContext): Promise<void> {
  const health = app.get(MmmqConsumerHealthIndicator);
  await waitFor(() => health.check().status === 'up', `every dispatcher to be registered (${JSON.stringify(health.check())})`);
}
