import { Injectable } from '@nestjs/common';
import { DispatcherRegistrationError, MmmqConsumerModule, MMMQListener } from '../../src';
import { freePort, startConsumer } from '../support/consumer-app';

@Injectable()
class OrderListener {
  @MMMQListener('order.*')
  onOrder(): void {}
}

describe('self-registration without a reachable broker', () => {
  it('retries with backoff, then fails bootstrap with an error that names the listener and the broker', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: nobody,
      advertisedUrl: `http://127.0.0.1:${await freePort()}`,
      registration: { attempts: 3, backoffMs: 10 },
    });
    const starting = startConsumer({ imports: [module], providers: [OrderListener] });

    await expect(starting).rejects.toBeInstanceOf(DispatcherRegistrationError);
    await expect(starting).rejects.toThrow(
      `Could not register the dispatcher billing.order-listener.on-order of OrderListener.onOrder with the broker at ${nobody} (attempt 3 of 3)`,
    );
  });
});
