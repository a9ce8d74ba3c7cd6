import { InvalidConsumerOptionsError } from '../src';
import { FrontHandler } from '../src/handling/front-handler';
import { MmmqConsumerHealthIndicator } from '../src/health/mmmq-consumer.health-indicator';
import { RegistrationStatus } from '../src/registration/registration-status';
import { TransportStatus } from '../src/transport/transport-status';

function indicatorWith(stalls: { longestRunningMs: number; queueFullMs: number }): MmmqConsumerHealthIndicator {
  const status = { snapshot: () => ({ started: true, registered: [], pending: [] }) } as unknown as RegistrationStatus;
  const handler = { load: { running: 1, waiting: 4 }, stalls: () => stalls } as unknown as FrontHandler;
  return new MmmqConsumerHealthIndicator(status, handler, new TransportStatus());
}

describe('the consumer health indicator on stuck handlers', () => {
  it('is down while the worker queue has been full longer than maxQueueFullMs, and up below it', async () => {
    const full = indicatorWith({ longestRunningMs: 10, queueFullMs: 5_000 });
    expect(await full.isHealthy('mmmq', { maxQueueFullMs: 1_000 })).toEqual({
      mmmq: {
        status: 'down',
        registered: [],
        pending: [],
        handlers: { running: 1, waiting: 4, longestRunningMs: 10, queueFullMs: 5_000 },
        message: 'the worker queue has been full for 5000 ms (maxQueueFullMs 1000); pushes are refused',
      },
    });
    expect(full.check({ maxQueueFullMs: 10_000 }).status).toBe('up');
  });

  it('refuses a threshold that is not a positive integer, naming it', () => {
    const healthy = indicatorWith({ longestRunningMs: 0, queueFullMs: 0 });
    expect(() => healthy.check({ maxHandlerMs: 0 })).toThrow(InvalidConsumerOptionsError);
    expect(() => healthy.check({ maxQueueFullMs: 1.5 })).toThrow(
      "The health check's maxQueueFullMs must be a positive integer (ms), got 1.5",
    );
  });
});
