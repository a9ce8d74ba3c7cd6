import type { Provider } from '@nestjs/common';
import { MmmqConsumerModule, MmmqConsumerOptions } from '../../src';
import type { BrokerApp } from './broker-app';
import { ConsumerApp, freePort, startConsumer } from './consumer-app';

/**
 * A consumer application that registers its listeners with `broker` at bootstrap, as users run it.
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
  return startConsumer({ imports: [module], providers }, { port: listenOn });
}
