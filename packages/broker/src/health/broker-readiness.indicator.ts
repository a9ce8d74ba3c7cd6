import { Injectable, Optional } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { Deduplicator } from '../deduplication/deduplicator';
import { DiskGuard } from '../storage/disk-guard';
import { TopicQueueBootstrapper } from '../storage/topic-queue-bootstrapper';
import { TopicQueueContainer } from '../storage/topic-queue-container';

/**
 * What `GET /health/ready` checks, one terminus entry each: `storage` (every topic on disk restored, the journal
 * replayed before the first of them opened, and the de-duplication windows read back from their logs), `disk` (the disk guard is not refusing publishes) and `topics` (no
 * topic refusing writes after a failed file write). The entries say what is down and how many, never a topic name
 * or a path: probes are answered without a token.
 */
@Injectable()
export class BrokerReadinessIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly bootstrapper: TopicQueueBootstrapper,
    private readonly diskGuard: DiskGuard,
    private readonly topics: TopicQueueContainer,
    @Optional() private readonly deduplicator?: Deduplicator,
  ) {}

  /**
   * Down until the topics are restored, then while a topic still reads back its de-duplication window (its publishes
   * with a producer-given id wait for that).
   */
  storage(): HealthIndicatorResult<'storage'> {
    const check = this.health.check('storage');
    if (!this.bootstrapper.restored) return check.down({ message: 'the topics on disk are not restored yet' });
    const restoring = this.deduplicator?.restoring ?? 0;
    if (restoring === 0) return check.up();
    return check.down({
      message: `${restoring} topic(s) are reading back the ids of their recent messages for de-duplication`,
      restoringDeduplication: restoring,
    });
  }

  disk(): HealthIndicatorResult<'disk'> {
    const check = this.health.check('disk');
    if (!this.diskGuard.refusing) return check.up();
    return check.down({ message: 'free disk space is below persistence.diskGuard.minFreeBytes; publishes are refused' });
  }

  /**
   * A topic whose last file write failed recovers on its next write after the refusal delay; the probe makes that
   * attempt itself, so a broker taken out of service by this check (no more publishes) still comes back.
   */
  async topicWrites(): Promise<HealthIndicatorResult<'topics'>> {
    const check = this.health.check('topics');
    const failed = this.topics.list().filter((queue) => queue.recoveringFromWriteFailure);
    const outcomes = await Promise.allSettled(failed.map((queue) => queue.assertWritable()));
    const refusing = outcomes.filter((outcome) => outcome.status === 'rejected').length;
    if (refusing === 0) return check.up();
    return check.down({ message: `${refusing} topic(s) refuse writes after a failed file write`, refusingWrites: refusing });
  }
}
