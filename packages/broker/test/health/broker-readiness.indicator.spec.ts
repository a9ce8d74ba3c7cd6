import { HealthIndicatorService } from '@nestjs/terminus';
import type { Deduplicator } from '../../src/deduplication/deduplicator';
import { BrokerReadinessIndicator } from '../../src/health/broker-readiness.indicator';
import type { DiskGuard } from '../../src/storage/disk-guard';
import type { TopicQueue } from '../../src/storage/topic-queue';
import type { TopicQueueBootstrapper } from '../../src/storage/topic-queue-bootstrapper';
import type { TopicQueueContainer } from '../../src/storage/topic-queue-container';

/** A topic as the indicator sees it: recovering or not, and whether its tail reopens when asked. */
function topic(recovering: boolean, reopens: boolean): TopicQueue {
  const assertWritable = jest.fn(() => (reopens ? Promise.resolve() : Promise.reject(new Error('EIO'))));
  return { recoveringFromWriteFailure: recovering, assertWritable } as unknown as TopicQueue;
}

function indicator(topics: TopicQueue[], deduplicator?: Partial<Deduplicator>): BrokerReadinessIndicator {
  const container = { list: () => topics } as unknown as TopicQueueContainer;
  const bootstrapper = { restored: true } as TopicQueueBootstrapper;
  const guard = { refusing: false } as DiskGuard;
  return new BrokerReadinessIndicator(new HealthIndicatorService(), bootstrapper, guard, container, deduplicator as Deduplicator);
}

describe('readiness of storage', () => {
  it('is down, with a count, while topics read back their de-duplication windows, and up once they have', () => {
    const deduplicator = { restoring: 2 };
    const ready = indicator([], deduplicator);
    expect(ready.storage()).toEqual({
      storage: {
        status: 'down',
        message: '2 topic(s) are reading back the ids of their recent messages for de-duplication',
        restoringDeduplication: 2,
      },
    });
    deduplicator.restoring = 0;
    expect(ready.storage()).toEqual({ storage: { status: 'up' } });
  });
});

describe('readiness of topic writes', () => {
  it('is up when no topic had a failed write, without touching any topic', async () => {
    const healthy = topic(false, false);
    expect(await indicator([healthy]).topicWrites()).toEqual({ topics: { status: 'up' } });
    expect(healthy.assertWritable).not.toHaveBeenCalled();
  });

  it('retries the failed topics itself: up once their tail reopens, down with a count (no names) while it fails', async () => {
    const recovered = topic(true, true);
    expect(await indicator([recovered]).topicWrites()).toEqual({ topics: { status: 'up' } });
    expect(recovered.assertWritable).toHaveBeenCalledTimes(1);

    const result = await indicator([topic(true, false), topic(true, true), topic(true, false)]).topicWrites();
    expect(result).toEqual({
      topics: { status: 'down', message: '2 topic(s) refuse writes after a failed file write', refusingWrites: 2 },
    });
  });
});
