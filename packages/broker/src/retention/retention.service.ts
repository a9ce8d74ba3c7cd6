import { promises as fs } from 'node:fs';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { MMMQ_RETENTION_CHECK_OPTIONS, ResolvedRetentionCheckOptions } from '../config/broker-options';
import { RecordsCommittedEvent } from '../storage/journal/records-committed.event';
import { ClosedSegment } from '../storage/segment-file-chain';
import { TopicOpenedEvent } from '../storage/topic-opened.event';
import { TopicQueue } from '../storage/topic-queue';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { TopicPolicies } from '../topics/topic-policies';
import { RETENTION_HOLDERS, RetentionHolders } from './retention-holders';
import { AgedSegment, planRetention } from './retention-plan';

/**
 * Deletes each topic's oldest whole segments past its `retention` (age, size), every
 * `persistence.retention.checkIntervalMs`, after a segment rotation when a size limit is set, and when a topic limit
 * refuses a publish. With `whenNeeded: keep` a segment a subscription's journaled cursor has not passed is kept (and
 * counted in {@link heldBytes}, with a warning when that starts); with `delete` it goes anyway, and the subscription
 * skips to the new start when it reads there (see Subscription.skipDeleted).
 */
@Injectable()
export class RetentionService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RetentionService.name);
  private readonly running = new Map<TopicQueue, Promise<void>>();
  private readonly again = new Set<TopicQueue>();
  /** Bytes held past the limit by a subscription, per topic (absent: none). */
  private readonly held = new Map<string, number>();
  /** Each open topic's segment count at its last commit: a change is a rotation. */
  private readonly segments = new Map<string, { queue: TopicQueue; count: number }>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly queues: TopicQueueContainer,
    @Inject(RETENTION_HOLDERS) private readonly subscriptions: RetentionHolders,
    private readonly policies: TopicPolicies,
    @Inject(MMMQ_RETENTION_CHECK_OPTIONS) private readonly options: ResolvedRetentionCheckOptions,
  ) {}

  onModuleInit(): void {
    this.queues.bus.listen(this);
    for (const queue of this.queues.list()) this.topicOpened({ queue });
    this.timer = setInterval(() => {
      for (const queue of this.queues.list()) void this.request(queue);
    }, this.options.checkIntervalMs).unref();
  }

  /** Bytes retention would delete from `topic` but a subscription still needs (`whenNeeded: keep`); 0 when none. */
  heldBytes(topic: string): number {
    return this.held.get(topic) ?? 0;
  }

  /** Checks the topic now, or once more after the check in progress; resolves when that is done. */
  request(queue: TopicQueue): Promise<void> {
    const running = this.running.get(queue);
    if (running) {
      this.again.add(queue);
      return running;
    }
    const run = (async () => {
      do {
        this.again.delete(queue);
        await this.check(queue);
      } while (this.again.has(queue) && !this.stopped);
    })()
      .catch((error: Error) => this.logger.error(`Topic ${queue.name}: the retention check failed: ${error.message}`, error.stack))
      .finally(() => this.running.delete(queue));
    this.running.set(queue, run);
    return run;
  }

  @OnEvent(TopicOpenedEvent.NAME)
  topicOpened({ queue }: TopicOpenedEvent): void {
    this.segments.set(queue.name, { queue, count: queue.chain.segmentCount });
  }

  /** A rotation of a topic with a size limit starts a check at once. */
  @OnEvent(RecordsCommittedEvent.NAME)
  recordsCommitted({ topics }: RecordsCommittedEvent): void {
    for (const { name } of topics) {
      const watched = this.segments.get(name);
      if (watched === undefined || watched.count === watched.queue.chain.segmentCount) continue;
      watched.count = watched.queue.chain.segmentCount;
      if (this.policies.of(name).retention.bytes !== null) void this.request(watched.queue);
    }
  }

  private async check(queue: TopicQueue): Promise<void> {
    // A topic opened by the journal's replay is not deletable until the replay is recorded as flushed.
    await this.queues.whenRecovered();
    if (this.stopped || !queue.writable) return;
    // Segments wholly below a purge mark (dead letters) go whatever the policy; a purge removes most of them itself.
    const purged = queue.purgedBelow;
    if (purged > queue.chain.startOffset) await queue.removeOldest((segment) => segment.endOffset <= purged);
    const { retention } = this.policies.of(queue.name);
    if (retention.ms === null && retention.bytes === null) return;
    const needed =
      retention.whenNeeded === 'keep' ? await this.subscriptions.neededFrom(queue.name) : { offset: Infinity, consumerIds: [] };
    const segments = await aged(queue.chain.closedSegments(), retention.ms !== null);
    const plan = planRetention({ segments, totalBytes: queue.byteSize, now: Date.now(), retention, neededFrom: needed.offset });
    if (plan.count > 0) {
      const removed = await queue.removeOldest((segment) => segment.endOffset <= plan.deleteEnd);
      if (removed.length > 0) this.logger.log(`Topic ${queue.name}: retention ${describeRemoved(removed, queue.startOffset)}`);
    }
    this.report(queue.name, plan.heldBytes, needed.consumerIds);
  }

  /** Warns once when subscriptions start holding the topic past its retention, and logs when that ends. */
  private report(topic: string, heldBytes: number, consumerIds: readonly string[]): void {
    const before = this.heldBytes(topic);
    if (heldBytes === 0) {
      this.held.delete(topic);
      if (before > 0) this.logger.log(`Topic ${topic}: no subscription holds it past its retention any more`);
      return;
    }
    this.held.set(topic, heldBytes);
    if (before > 0) return;
    const who = consumerIds.length > 0 ? `consumer ${consumerIds.join(', ')}` : 'a subscription being attached';
    this.logger.warn(
      `Topic ${topic}: retention keeps ${heldBytes} bytes past its limit because ${who} has not consumed them ` +
        '(retention.whenNeeded: keep); they are deleted once consumed',
    );
  }

  onApplicationShutdown(): Promise<unknown> {
    this.stopped = true;
    clearInterval(this.timer);
    return Promise.allSettled([...this.running.values()]);
  }
}

/**
 * A closed segment's age is its data file's mtime: the time its last entry was written, which is when its newest
 * message arrived (a segment is never written once closed). A rewrite by the journal's replay or a restored backup
 * only makes a segment look younger, so it is kept longer, never deleted early; and no message is read to know it.
 */
async function aged(segments: readonly ClosedSegment[], needed: boolean): Promise<AgedSegment[]> {
  const now = Date.now();
  if (!needed) return segments.map((segment) => ({ ...segment, modifiedAt: now }));
  return Promise.all(
    segments.map(async (segment) => ({
      ...segment,
      modifiedAt: await fs.stat(segment.dataPath).then(
        (stats) => stats.mtimeMs,
        () => now,
      ),
    })),
  );
}

/** For the log: what went, and where the topic starts now. */
export function describeRemoved(removed: readonly ClosedSegment[], start: number): string {
  const bytes = removed.reduce((sum, segment) => sum + segment.bytes, 0);
  const first = removed[0].startOffset;
  const end = removed[removed.length - 1].endOffset;
  return `deleted ${removed.length} segments (offsets ${first}..${end - 1}, ${bytes} bytes); the topic starts at ${start} now`;
}
