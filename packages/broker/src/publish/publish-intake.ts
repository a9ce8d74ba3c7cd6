import {
  type AcceptedMessage,
  type DeliveryMode,
  type FsyncMode,
  type PublishedMessage,
  type StoredMessage,
  stricterFsync,
} from '@mmmq/core';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DeduplicationClaim } from '../deduplication/deduplication-claim';
import { Deduplicator } from '../deduplication/deduplicator';
import { AttachGate } from './attach-gate';
import { BacklogGuard } from './backlog-guard';
import { TopicLimits } from '../retention/topic-limits';
import { DiskGuard, TopicQueue, TopicQueueContainer } from '../storage';
import type { CommitPart } from '../storage/journal/journal-commit';
import { describeCause } from '../storage/journal/describe-cause';
import { MMMQ_LIMITS_OPTIONS, type ResolvedLimitsOptions } from '../config/broker-options';
import { TopicPolicies } from '../topics/topic-policies';
import { encodeEnvelope } from '../format/message-envelope';
import { scheduleOf } from './message-schedule';
import { PUBLISH_OBSERVER, PublishObserver } from './publish-observer';
import type { PublishableMessage } from '../format/publishable-message';

/** Messages that have their place in the broker's commit order (see {@link PublishIntake.enqueue}). */
export interface Enqueued {
  /** `persistent` if any of the messages is (one commit cannot be half durable when acknowledged). */
  deliveryMode: DeliveryMode;
  /**
   * What to answer the publisher, once it may be answered: once durable for a persistent commit, at once for a
   * nonPersistent one (rejects only where the publisher must be told: a persistent commit that failed, or a
   * nonPersistent one made while the journal refuses writes, which waits for its outcome).
   */
  acknowledged: Promise<PublishedMessage[]>;
  /** Resolves once the messages are durable and visible; rejects when nothing of them was stored. */
  committed: Promise<void>;
}

/**
 * Appends validated messages to their topic's log and answers the publisher: once they are durable (persistent),
 * or once they have their place in the commit order (nonPersistent). Every publish, HTTP or stream, comes through
 * here, so this is where the {@link DiskGuard} refuses them, and the {@link BacklogGuard} refuses those to a topic
 * whose `reject` subscription is full (a batch is refused whole), and where the {@link Deduplicator} answers a
 * re-publish of a known producer-given id with its original ACK instead of storing it again.
 */
@Injectable()
export class PublishIntake {
  private readonly logger = new Logger(PublishIntake.name);

  constructor(
    private readonly queues: TopicQueueContainer,
    // All but the queues are absent only where a test builds the intake by hand: then nothing is refused for
    // space or limits, every topic is persistent without a default time to live, and nothing is measured.
    private readonly diskGuard?: DiskGuard,
    private readonly policies?: TopicPolicies,
    private readonly backlogGuard?: BacklogGuard,
    @Optional() private readonly limits?: TopicLimits,
    @Optional() @Inject(PUBLISH_OBSERVER) private readonly observer?: PublishObserver,
    @Optional() private readonly deduplicator?: Deduplicator,
    @Optional() private readonly attachGate?: AttachGate,
    @Optional() @Inject(MMMQ_LIMITS_OPTIONS) private readonly brokerLimits?: Pick<ResolvedLimitsOptions, 'maxDelayMs'>,
  ) {}

  /** Resolves with the ACK of one message: once durable when persistent, on receipt when nonPersistent. */
  async publish(message: PublishableMessage): Promise<PublishedMessage> {
    const [published] = await this.publishBatch([message]);
    return published;
  }

  /**
   * Appends every message in one commit — one journal record, whatever topics they name: all are durable and
   * visible together (each topic's at consecutive offsets, in batch order), or none is written. Answers as
   * {@link publish}; the batch is persistent if any of its messages is.
   */
  async publishBatch(messages: readonly PublishableMessage[]): Promise<PublishedMessage[]> {
    return (await this.enqueue(messages)).acknowledged;
  }

  /**
   * Gives the messages their place in the broker's commit order and resolves as soon as they have it, before they
   * are durable: whatever is enqueued after this resolves is stored after these messages.
   */
  async enqueue(messages: readonly PublishableMessage[]): Promise<Enqueued> {
    const started = this.startClock();
    const { parts, published, release, deduplication } = await this.prepare(messages);
    if (parts.length === 0) {
      // Every message is a re-publish of one already stored: answered at once, nothing is committed.
      release();
      return { deliveryMode: 'persistent', acknowledged: Promise.resolve(published([])), committed: Promise.resolve() };
    }
    const deliveryMode = this.modeOf(messages);
    // Known before committing: a nonPersistent ACK must not be sent for what the journal is already refusing, nor
    // while so much waits for it that answering early would let publishers outrun the disk.
    const early = this.queues.journal.mayAnswerEarly;
    const answeredEarly = deliveryMode === 'nonPersistent' && early;
    const fsync = this.fsyncOf(parts);
    const offered = this.queues.journal.commit(parts, answeredEarly, fsync);
    offered.then(release, () => release());
    if (started !== undefined)
      offered.then(
        () => this.observeCommitted(parts, started),
        () => undefined,
      );
    const committed = offered.then(() => undefined);
    // Only the callers that wait for durability look at it; a failure reaches the others through `acknowledged`.
    committed.catch(() => undefined);
    // The ACK says when it was not fsync'd first; an ACK without `fsync` means durable, as before flush policies.
    const unsynced = fsync === 'always' ? undefined : { fsync };
    if (deliveryMode === 'persistent') {
      const acknowledged = offered.then(published);
      return {
        deliveryMode,
        acknowledged: unsynced ? acknowledged.then((acks) => acks.map((ack) => ({ ...ack, ...unsynced }))) : acknowledged,
        committed,
      };
    }
    const accepted = messages.map(
      (message, index): PublishedMessage =>
        deduplication?.accepted(index, deliveryMode) ??
        ({ id: message.id, topic: message.topic.name, deliveryMode, ...unsynced } as AcceptedMessage),
    );
    if (!early) return { deliveryMode, acknowledged: offered.then(() => accepted), committed };
    offered.catch((error: unknown) =>
      this.lost(deduplication ? messages.filter((_, index) => !deduplication.isDuplicate(index)) : messages, error),
    );
    return { deliveryMode, acknowledged: Promise.resolve(accepted), committed };
  }

  /** When a publish arrived, for {@link observeCommitted}; undefined while nobody observes (metrics off). */
  startClock(): number | undefined {
    return this.observer && performance.now();
  }

  /**
   * Tells the observer (metrics) what a commit of {@link prepare}d parts stored and how long it took since
   * {@link startClock}; for the commits made elsewhere (transactions) as for {@link enqueue}'s.
   */
  observeCommitted(parts: readonly CommitPart[], started: number | undefined): void {
    if (started === undefined) return;
    const seconds = (performance.now() - started) / 1000;
    const stored = parts.flatMap((part) =>
      'payloads' in part
        ? [
            {
              topic: part.topic.name,
              messages: part.payloads.length,
              bytes: part.payloads.reduce((sum, payload) => sum + payload.length, 0),
            },
          ]
        : [],
    );
    this.observer?.committed(stored, seconds);
  }

  /**
   * The journal parts that store `messages` (one per topic, in batch order), checked like a publish (disk guard,
   * backlog limits, writable topics, topic limits), and how the parts' first offsets map to each message's place once
   * durable. A transaction commits them with its subscription state in one record. `release` must be called once
   * that commit is settled, with the parts' first offsets when it stored them, without when it did not: until then
   * the messages count against their topics' limits, and their ids are pending for de-duplication.
   *
   * Re-publishes of known ids are left out of the parts (which may be none) and answered by `published` with their
   * original ACKs (`deduplication` says which).
   */
  async prepare(messages: readonly PublishableMessage[]): Promise<{
    parts: CommitPart[];
    published: (firstOffsets: Array<number | undefined>) => PublishedMessage[];
    release: (firstOffsets?: Array<number | undefined>) => void;
    deduplication?: DeduplicationClaim;
  }> {
    // Bad input first: a refused schedule creates no topic and claims no id.
    const delays = scheduleOf(messages, Date.now(), this.brokerLimits?.maxDelayMs ?? Number.MAX_SAFE_INTEGER);
    this.diskGuard?.assertMayPublish();
    for (const topic of new Set(messages.map((message) => message.topic.name))) this.backlogGuard?.assertMayPublish(topic);
    const byTopic = new Map<string, { queue: TopicQueue; payloads: Buffer[]; indices: number[] }>();
    const named = new Map<string, PublishableMessage['topic']>();
    for (const message of messages) if (!named.has(message.topic.name)) named.set(message.topic.name, message.topic);
    // All the batch's new topics are created, or none (a cap reached: limits.maxTopics, limits.maxSubscriptions).
    const queues = await this.queues.getOrCreateAll([...named.values()]);
    for (const queue of queues) {
      byTopic.set(queue.topic.name, { queue, payloads: [], indices: [] });
      // A topic opened just now: committed only once its subscriptions are attached, so the ACK finds it visible to them.
      const attaching = this.attachGate?.whenAttached(queue.topic.name);
      if (attaching) await attaching;
    }
    // Awaited only when it had to wait: a publish pays no extra turn of the event loop otherwise.
    const claimed = this.deduplicator?.claim(messages);
    const deduplication = claimed instanceof Promise ? await claimed : claimed;
    try {
      const publishedAt = deduplication?.at ?? Date.now();
      for (const [index, message] of messages.entries()) {
        if (deduplication?.isDuplicate(index)) continue;
        const part = byTopic.get(message.topic.name)!;
        part.payloads.push(this.encode(message, publishedAt, delays[index]));
        part.indices.push(index);
      }
      const topics = [...byTopic.values()].filter(({ payloads }) => payloads.length > 0);
      for (const { queue } of topics) if (!queue.writable) await queue.assertWritable();
      const releases = await this.admitAll(topics);
      let answered: { firstOffsets: Array<number | undefined>; acks: PublishedMessage[] } | undefined;
      const published = (firstOffsets: Array<number | undefined>) => {
        // Asked twice for one commit when ids are remembered (the answer, and release): computed once.
        if (answered?.firstOffsets === firstOffsets) return answered.acks;
        const acks = new Array<PublishedMessage>(messages.length);
        topics.forEach(({ queue, indices }, i) =>
          indices.forEach((index, n) => {
            const offset = (firstOffsets[i] as number) + n;
            acks[index] = { id: messages[index].id, topic: queue.topic.name, offset, deliveryMode: 'persistent' } satisfies StoredMessage;
          }),
        );
        if (deduplication) answered = { firstOffsets, acks: deduplication.fill(acks) };
        return acks;
      };
      const release = (firstOffsets?: Array<number | undefined>) => {
        releases.forEach((done) => done());
        deduplication?.committed(firstOffsets && published(firstOffsets));
      };
      return { parts: topics.map(({ queue, payloads }) => ({ topic: queue, payloads })), published, release, deduplication };
    } catch (error) {
      // Refused: nothing of it is stored, so nothing of it is remembered.
      deduplication?.committed(undefined);
      throw error;
    }
  }

  /**
   * The stored envelope. Its `expiresAt` is absolute (wall clock), fixed now: the producer's, or the time it becomes
   * deliverable (`dueAt` for a scheduled message, else `publishedAt`) plus the message's `ttlMs`, or plus the
   * topic's `expiry.ttlMs` when the message has neither.
   */
  private encode(message: PublishableMessage, publishedAt: number, delayMs: number | undefined): Buffer {
    const ttlMs = message.ttlMs ?? this.policies?.of(message.topic.name).expiry.ttlMs ?? null;
    // `deliverAt` as given; `delayMs` from the publish time.
    const dueAt =
      delayMs === undefined ? undefined : message.deliverAt === undefined ? publishedAt + delayMs : Date.parse(message.deliverAt);
    const expiresAt = message.expiresAt ?? (ttlMs === null ? undefined : (dueAt ?? publishedAt) + ttlMs);
    return encodeEnvelope({
      id: message.id,
      topic: message.topic.name,
      publishedAt,
      headers: message.headers,
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(message.priority === undefined ? {} : { priority: message.priority }),
      ...(dueAt === undefined ? {} : { dueAt }),
      ...(message.cancels === undefined ? {} : { cancels: message.cancels }),
      content: message.content,
    });
  }

  /** The strictest flush policy of the topics a commit writes: `always` if any of them says so. */
  private fsyncOf(parts: readonly CommitPart[]): FsyncMode {
    let mode: FsyncMode = 'never';
    for (const part of parts) if ('topic' in part) mode = stricterFsync(mode, this.policies?.of(part.topic.name).fsync ?? 'always');
    return mode;
  }

  /** A message's own mode, else its topic's; a commit is persistent if any of its messages is. */
  private modeOf(messages: readonly PublishableMessage[]): DeliveryMode {
    for (const message of messages) {
      const mode = message.deliveryMode ?? this.policies?.of(message.topic.name).deliveryMode ?? 'persistent';
      if (mode === 'persistent') return mode;
    }
    return 'nonPersistent';
  }

  /** nonPersistent messages were acknowledged, then their journal write failed: they are gone. */
  private lost(messages: readonly PublishableMessage[], error: unknown): void {
    this.queues.journal.countLost(messages.length);
    const ids = messages.map((message) => `${message.topic.name}/${message.id}`);
    this.logger.error(
      `${messages.length} nonPersistent message(s) acknowledged on receipt were lost: their journal write failed ` +
        `(${describeCause(error)}). Lost: ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? `, … (${ids.length - 10} more)` : ''}`,
    );
  }

  /** Admits every part under its topic's limits, or none: a batch is refused whole. */
  private async admitAll(parts: ReadonlyArray<{ queue: TopicQueue; payloads: Buffer[] }>): Promise<Array<() => void>> {
    const releases: Array<() => void> = [];
    if (!this.limits) return releases;
    try {
      for (const { queue, payloads } of parts) releases.push(await this.limits.admit(queue, payloads));
    } catch (error) {
      for (const release of releases) release();
      throw error;
    }
    return releases;
  }
}
