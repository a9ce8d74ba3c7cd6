import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { Topic } from '@mmmq/core';
import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import { BrokerLimitReachedError } from '../config/broker-limit.error';
import { BrokerBus } from '../events/broker-bus';
import { BrokerEvents } from '../events/broker-events';
import { MmmqBrokerEvent } from '../events/mmmq-broker-event';
import { MMMQ_LIMITS_OPTIONS, MMMQ_PERSISTENCE_OPTIONS, ResolvedLimitsOptions, ResolvedPersistenceOptions } from '../config/broker-options';
import { descriptorPool, DescriptorPoolView } from './descriptor-pool';
import { createDirectoryDurably, syncDirectory } from './file-handle';
import { Journal } from './journal/journal';
import { createJournal } from './journal/journal.provider';
import type { JournalPorts } from './journal/journal-ports';
import { recoverJournal } from './journal/journal-recovery';
import { StorageUnavailableError, TopicNameConflictError } from './storage.errors';
import { TopicQueue } from './topic-queue';
import { TopicOpenedEvent } from './topic-opened.event';
import { TopicQueueFactory } from './topic-queue.factory';

export const TOPICS_DIR = 'topics';
export const JOURNAL_DIR = 'journal';

/**
 * Asked before topics are created for a publish, with the names of the new ones: throws to refuse them all (the
 * subscription cap: each new topic gets a subscription per matching dispatcher).
 */
export type TopicCreationGuard = (newTopics: readonly Topic[]) => void;

/** The journal's state and the storage layer's counters since the broker started. */
export interface StorageView {
  journal: { files: number; bytes: number; lastSeq: number; flushedSeq: number };
  topics: number;
  /** Journal records written: commit groups, whatever topics each touched. */
  commits: number;
  flushes: number;
  /** fdatasync/fsync calls: for commits (journal), flushes, and the rest (new files, directories, recovery). */
  fsyncs: { journal: number; flush: number; other: number; total: number };
  /** nonPersistent messages acknowledged on receipt and lost since start because their journal write failed. */
  nonPersistentLost: number;
  /** The storage layer's open descriptors: the budget (`limits.maxOpenFiles`), open now, peak, closes and reopens. */
  descriptors: DescriptorPoolView;
  /** True while flushes fail for a passing reason (descriptors or space ran out) and are retried with backoff. */
  flushRetrying: boolean;
}

/**
 * Every open topic queue, by name: the per-topic accessor of `TopicQueue` (and through it of each topic's
 * `SegmentFileChain` and `CheckpointDirectory`). Before the first topic is used it replays the broker-wide journal
 * into the topic files; it opens a topic on first use through the {@link TopicQueueFactory} and announces it on
 * the broker's bus ({@link TopicOpenedEvent}; and to the host application, `mmmq.topic.created`, when it was new).
 */
@Injectable()
export class TopicQueueContainer implements OnApplicationShutdown {
  private readonly logger = new Logger(TopicQueueContainer.name);
  private readonly queues = new Map<string, TopicQueue>();
  private readonly opening = new Map<string, Promise<TopicQueue>>();
  /** Case-folded name → name, so `Order` cannot be created beside `order`. */
  private readonly names = new Map<string, string>();
  private recovering?: Promise<void>;
  private recovered = false;
  private closing?: Promise<void>;
  readonly topicsDir: string;
  readonly journalDir: string;
  /** `topics/` as the flush makes it durable once a topic was created in it. */
  private readonly topicsDirectory = { sync: async () => (await syncDirectory(this.topicsDir), 1) };

  private readonly creationGuards = new Set<TopicCreationGuard>();
  /** Most topics (`limits.maxTopics`); unlimited where a test builds the container without limits. */
  private readonly maxTopics: number;

  constructor(
    @Inject(MMMQ_PERSISTENCE_OPTIONS) options: ResolvedPersistenceOptions,
    readonly journal: Journal,
    private readonly factory: TopicQueueFactory,
    /** Where topics opening are announced, and delivery's handlers subscribe. */
    readonly bus: BrokerBus,
    private readonly events: BrokerEvents,
    @Optional() @Inject(MMMQ_LIMITS_OPTIONS) limits?: ResolvedLimitsOptions,
  ) {
    this.topicsDir = join(resolve(options.rootDir), TOPICS_DIR);
    this.journalDir = join(resolve(options.rootDir), JOURNAL_DIR);
    this.maxTopics = limits?.maxTopics ?? Infinity;
    // The process's descriptor budget: one pool for every broker of the process (they share its RLIMIT_NOFILE).
    if (limits) descriptorPool.setMax(limits.maxOpenFiles);
  }

  /**
   * Storage without Nest (tests, tools): the journal, factory and bus the broker module injects, built from the
   * options. Nothing listens on its bus until a handler subscribes (`bus.listen`).
   */
  static standalone(
    options: ResolvedPersistenceOptions,
    events = new BrokerEvents(),
    ports: Omit<JournalPorts, 'bus'> = {},
  ): TopicQueueContainer {
    const bus = new BrokerBus();
    const journal = createJournal(options, { ...ports, bus });
    return new TopicQueueContainer(options, journal, TopicQueueFactory.standalone(options, journal), bus, events);
  }

  /** Adds a check run before a publish creates topics (see {@link getOrCreateAll}); returns its removal. */
  addCreationGuard(guard: TopicCreationGuard): () => void {
    this.creationGuards.add(guard);
    return () => this.creationGuards.delete(guard);
  }

  get(name: string): TopicQueue | undefined {
    return this.queues.get(name);
  }

  /** True while the topic is open or being opened (created, or recovered). */
  isOpenOrOpening(name: string): boolean {
    return this.queues.has(name) || this.opening.has(name);
  }

  list(): TopicQueue[] {
    return [...this.queues.values()];
  }

  /** The open queues, as a live iteration (no copy): a walk in turns meets topics created meanwhile, or not. */
  each(): IterableIterator<TopicQueue> {
    return this.queues.values();
  }

  /** What `GET /mmmq/storage` shows. */
  async view(): Promise<StorageView> {
    await this.whenRecovered();
    const { stats } = this.journal;
    return {
      journal: {
        files: this.journal.fileCount,
        bytes: await this.journal.byteSize(),
        lastSeq: this.journal.lastSeq,
        flushedSeq: this.journal.flushed,
      },
      topics: this.queues.size,
      commits: stats.commits,
      flushes: stats.flushes,
      fsyncs: { journal: stats.journalFsyncs, flush: stats.flushFsyncs, other: stats.otherFsyncs, total: stats.totalFsyncs },
      nonPersistentLost: stats.nonPersistentLost,
      descriptors: descriptorPool.view(),
      flushRetrying: this.journal.flushRetrying,
    };
  }

  /** Resolves once the journal is replayed into the topic files and open for commits; whoever asks first starts it. */
  whenRecovered(): Promise<void> {
    this.recovering ??= (async () => {
      await createDirectoryDurably(this.journalDir);
      await createDirectoryDurably(this.topicsDir);
      const start = await recoverJournal(this.journalDir, (name) => this.openTopic(Topic.of(name)));
      await this.journal.open(start);
      this.recovered = true;
      // Topics the replay opened are announced only now, with their replayed entries readable.
      for (const queue of this.queues.values()) {
        queue.resumeAfterReplay();
        this.announce(queue);
      }
    })();
    return this.recovering;
  }

  /** The open queue of `topic`, opening (and recovering) or creating it first. */
  async getOrCreate(topic: Topic): Promise<TopicQueue> {
    const open = this.queues.get(topic.name);
    if (open) return open;
    await this.whenRecovered();
    return this.openTopic(topic);
  }

  /**
   * The open queues of `topics` for a publish, creating the missing ones — all of them or none: a publish that would
   * take the broker past `limits.maxTopics`, or past a cap a {@link addCreationGuard} guard checks, is refused with
   * {@link BrokerLimitReachedError} before any topic is created. Reserved (`__`) topics are never refused: the
   * broker makes them, at most two per dispatcher.
   */
  async getOrCreateAll(topics: readonly Topic[]): Promise<TopicQueue[]> {
    if (topics.every((topic) => this.queues.has(topic.name))) return topics.map((topic) => this.queues.get(topic.name)!);
    await this.whenRecovered();
    const fresh = new Map<string, Topic>();
    for (const topic of topics) {
      if (!this.queues.has(topic.name) && !this.opening.has(topic.name) && !topic.isReserved) fresh.set(topic.name, topic);
    }
    if (fresh.size > 0) {
      const total = this.queues.size + this.opening.size + fresh.size;
      if (total > this.maxTopics) {
        throw new BrokerLimitReachedError(
          'limits.maxTopics',
          this.maxTopics,
          `Creating ${fresh.size} topic${fresh.size === 1 ? '' : 's'} (${[...fresh.keys()].slice(0, 3).join(', ')}${fresh.size > 3 ? ', …' : ''}) beside the ${this.queues.size + this.opening.size} there are`,
        );
      }
      for (const guard of this.creationGuards) guard([...fresh.values()]);
    }
    // Every topic starts opening in this turn, so a concurrent publish counts them as existing.
    return Promise.all(topics.map((topic) => this.openTopic(topic)));
  }

  private openTopic(topic: Topic): Promise<TopicQueue> {
    const open = this.queues.get(topic.name);
    if (open) return Promise.resolve(open);
    if (this.closing) {
      return Promise.reject(new StorageUnavailableError(`The broker is shutting down; topic ${topic.name} is closed`));
    }
    const existing = this.names.get(Topic.caseFoldKey(topic.name));
    if (existing !== undefined && existing !== topic.name) {
      return Promise.reject(new TopicNameConflictError(`Topic ${topic.name} differs from the existing topic ${existing} only in case`));
    }
    let opening = this.opening.get(topic.name);
    if (!opening) {
      this.names.set(Topic.caseFoldKey(topic.name), topic.name);
      opening = this.open(topic).finally(() => this.opening.delete(topic.name));
      this.opening.set(topic.name, opening);
    }
    return opening;
  }

  private async open(topic: Topic): Promise<TopicQueue> {
    const dir = join(this.topicsDir, topic.name);
    let queue: TopicQueue;
    let created = false;
    try {
      created = await this.ensureDirectory(dir);
      const opened = await this.factory.open(topic, dir);
      queue = opened.queue;
      // The new directory's entry, and the entries in it, are made durable by the next flush (before its FLUSHED
      // record lets the journal forget them); until then the journal's replay recreates them.
      if (created) this.journal.markDirty(this.topicsDirectory);
      if (created || queue.checkpoints.createdFolder) {
        queue.chain.markDirectoryDirty();
        queue.checkpoints.flushFolderWith(queue);
      }
      for (const { startOffset, repairs: done } of opened.repairs) {
        this.logger.warn(`Topic ${topic.name}, segment ${startOffset} repaired: ${done.join('; ')}`);
      }
    } catch (cause) {
      this.names.delete(Topic.caseFoldKey(topic.name));
      // A topic this open was creating holds nothing committed: its directory goes, so a refused publish (no
      // descriptor, no space) leaves no empty topic behind to be restored, and counted, at the next start.
      if (created) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw new StorageUnavailableError(`Topic ${topic.name} cannot be opened; publishes to it are refused`, { cause });
    }
    this.queues.set(topic.name, queue);
    if (this.recovered) this.announce(queue);
    // Not for a directory the journal's replay recreated: that topic was created before the restart.
    if (created && this.recovered) {
      this.events.emit(MmmqBrokerEvent.TOPIC_CREATED, () => ({ topic: topic.name, reserved: topic.isReserved }));
    }
    return queue;
  }

  private announce(queue: TopicQueue): void {
    const tail = queue.tailOffset;
    queue.repairPurgeMark().then(
      (found) =>
        found !== undefined &&
        this.logger.warn(`Topic ${queue.topic.name}: its purge mark ${found} was above its tail ${tail}; lowered to ${tail}`),
      (error: Error) => this.logger.error(`Topic ${queue.topic.name}: lowering its purge mark failed: ${error.message}`),
    );
    this.bus.emit(TopicOpenedEvent.NAME, new TopicOpenedEvent(queue));
  }

  private async ensureDirectory(dir: string): Promise<boolean> {
    const created = await fs.mkdir(dir, { recursive: true });
    return created !== undefined;
  }

  /**
   * Drains and flushes the journal, then closes every queue. Idempotent; every queue is closed even if one fails.
   */
  onApplicationShutdown(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled(this.opening.values());
      await this.recovering?.catch(() => undefined);
      await this.journal.close().catch((error: unknown) => this.logger.error('Closing the journal failed', (error as Error).stack));
      const results = await Promise.allSettled(this.list().map((queue) => queue.close()));
      this.queues.clear();
      for (const result of results) {
        if (result.status === 'rejected') this.logger.error('Closing a topic queue failed', result.reason);
      }
      this.logger.log('All topic queues closed');
    })();
    return this.closing;
  }
}
