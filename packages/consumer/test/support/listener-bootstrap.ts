import type { Provider } from '@nestjs/common';
import { MmmqConsumerModule } from '../../src';
import { initConsumer } from './consumer-context';

/** Bootstraps an application with `providers` as its listeners and the given consumer options (no transport). */
export function bootstrapListeners(providers: Provider[], options: Parameters<typeof MmmqConsumerModule.forRoot>[0] = {}) {
  return initConsumer({ imports: [MmmqConsumerModule.forRoot(options)], providers });
}
