import type { INestApplication, Provider } from '@nestjs/common';
import { MmmqConsumerModule, MmmqConsumerOptions } from '../../src';
import type { BrokerApp } from './broker-app';
import { CapturedLogger } from './captured-logger';
import { initConsumer } from './consumer-context';
import { registered } from './registered-consumer';

/** A consumer application with `delivery: 'pull'` against `broker`: initialised, never listening (it needs no port), registered. */
export async function startPullingConsumer(
  broker: BrokerApp,
  providers: Provider[],
  options: MmmqConsumerOptions = {},
): Promise<{ app: INestApplication; logs: CapturedLogger }> {
  const module = MmmqConsumerModule.forRoot({
    app: 'billing',
    broker: broker.url,
    delivery: 'pull',
    registration: { backoffMs: 50 },
    ...options,
    pull: { waitMs: 500, ...options.pull },
  });
  const started = await initConsumer({ imports: [module], providers });
  await registered(started.app);
  return started;
}
