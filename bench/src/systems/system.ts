import type { BenchContent } from '../payload';
import type { EmbeddedApp } from './mmmq-embedded';
import type { OutboxPipeline, OutboxRound } from './outbox-pipeline';

/** Dispatcher settings a plain consumer may register besides the defaults (`ordered: false`: independent pushes). */
export interface PlainDispatcherSettings {
  ordered?: boolean;
  maxInFlight?: number;
}

/**
 * What one round of a workload uses: its topics (queues, streams, subjects) and its consumer groups.
 * Every group receives every message of every topic (a group is one consumer: a RabbitMQ queue per topic,
 * a Redis consumer group, a JetStream durable consumer, an MMMQ listener/dispatcher).
 */
export interface TopicPlan {
  /** Unique per round, so rounds never see each other's messages; topics start with it. */
  prefix: string;
  topics: string[];
  groups: string[];
}

export type OnMessage = (group: number, content: BenchContent) => void;
/** Member `member` of a group shared by competing consumers received `content`. */
export type OnMemberMessage = (member: number, content: BenchContent) => void;

export interface ConsumeHandle {
  close(): Promise<void>;
  /** Something the report must know about this consumer's round (acknowledgements the broker refused). */
  note?(): string | undefined;
}

/** How a pull consumer asks for messages: `fetch up to batch, then acknowledge the batch`. */
export interface PullOptions {
  /** Messages asked for per fetch. */
  batch: number;
  /** Longest a fetch waits for messages (long poll) before it answers with what it has. */
  waitMs: number;
}

/** Used by the backlog workload: restart the broker with a full backlog and start consuming. */
export interface RestartResult {
  /** performance.now() when the broker was told to start again. */
  restartAt: number;
  /** performance.now() when the broker accepted connections again. */
  readyAt: number;
  handle: ConsumeHandle;
  /** Something the report must say about this restart. */
  note?: string;
}

/**
 * Publishers that each send one message at a time: `publish(c, …)` is only called again for connection `c`
 * once its previous call resolved. For the plain-publishers workload (no client batching, no pipelining).
 */
export interface SequentialPublishers {
  /** Sends one message on publisher `c` and resolves once the broker acknowledged it as stored. */
  publish(c: number, content: BenchContent): Promise<void>;
  close(): Promise<void>;
}

/**
 * A requester and a replier (a Nest microservice with one `@MessagePattern` handler in a process of its own), ready
 * for the request-reply workload.
 */
export interface RequestReplyRig {
  /** Sends one request through the system's `ClientProxy.send()` and resolves with its reply. */
  request(content: BenchContent): Promise<BenchContent>;
  /** The broker's processes and the replier's, sampled for the server CPU. */
  serverPids(): number[];
  /** Something the report must know about the round (late or dropped replies). */
  note?(): string | undefined;
  close(): Promise<void>;
}

/** The broker's own fsync counters since it started (MMMQ's `GET /mmmq/storage`, `fsyncs`). */
export interface FsyncCounters {
  total: number;
  journal: number;
  flush: number;
  other: number;
}

/**
 * `mmmq-mode`: MMMQ in another delivery mode, shown beside MMMQ in the publish workloads; never a peer.
 * `mmmq-transport`: MMMQ's own libraries (Producer, listeners) on another broker through the `transport` option
 * (the "MMMQ API on RabbitMQ quorum" row of docs/scaling.md), shown as a row beside the others; neither MMMQ nor a peer, so it never
 * counts in the ratios and targets, which compare the MMMQ broker with the peers.
 * `reference`: not a broker (the outbox-inbox workload's no-broker ceiling), shown as a row, never in ratios and targets.
 */
export type SystemKind = 'mmmq' | 'mmmq-mode' | 'mmmq-transport' | 'durable-peer' | 'peer' | 'reference';

/** What the publish and end-to-end paths use of a system: also implemented by the embedded app, in its own process. */
export type MessagePath = Pick<System, 'declare' | 'publish' | 'consume' | 'drop'>;

export interface System {
  readonly id: string;
  readonly label: string;
  /** `durable-peer`: acknowledges a publish only once it is fsync'd (the comparison that counts). */
  readonly kind: SystemKind;
  /** One line: what an acknowledgement means and how the client is set up. */
  readonly description: string;
  /**
   * Why the system runs only the workloads that measure publishing (`Workload.measuresPublishing`): set for MMMQ in
   * another delivery mode, whose consumers are MMMQ's.
   */
  readonly publishOnly?: string;
  /** Workload id → why this system does not run it (a workload it could run but whose figure would mean nothing). */
  readonly skips?: Readonly<Record<string, string>>;
  /** The only workloads this system runs, and why (a reference that is not a broker); absent: every one that applies. */
  readonly onlyWorkloads?: { readonly ids: readonly string[]; readonly why: string };

  /** Connects clients (and starts what the bench runs itself). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The broker's processes, sampled for CPU and RSS. */
  brokerPids(): number[];
  /** Version string for the report. */
  version(): Promise<string>;

  /** Creates what must exist before publishing (queues, streams, consumer groups). */
  declare(plan: TopicPlan): Promise<void>;
  /** Resolves once the broker has acknowledged the message (publisher confirm, XADD reply, PubAck, ACK). */
  publish(topic: string, content: BenchContent): Promise<void>;
  /**
   * Optional faster way to load a backlog (not a measured figure): MMMQ's `produceBatch`. Systems without it
   * are filled with pipelined `publish` calls.
   */
  publishBatch?(topic: string, contents: BenchContent[]): Promise<void>;
  /**
   * Publishes a batch scheduled for `deliverAt` (epoch ms): stored now, delivered at or after that time. Systems
   * without it do not run the scheduled workload.
   */
  publishScheduled?(topic: string, contents: BenchContent[], deliverAt: number): Promise<void>;
  /**
   * Opens `count` publishers to `topic`, each on its own connection (RabbitMQ: its own confirm channel; NATS:
   * one connection shared, as its client multiplexes), none pipelining or batching. Systems without it do not run
   * the plain-publishers workload.
   */
  openSequentialPublishers?(topic: string, count: number): Promise<SequentialPublishers>;
  /** Starts one consumer per group; `onMessage` runs before the message is acknowledged. */
  consume(plan: TopicPlan, onMessage: OnMessage): Promise<ConsumeHandle>;
  /**
   * Starts `members` consumers sharing the plan's one group on its one topic (queue semantics: each message
   * goes to one of them), each with the system's usual consumer settings, on a connection or channel of its own.
   */
  consumeCompeting(plan: TopicPlan, members: number, onMessage: OnMemberMessage): Promise<ConsumeHandle>;
  /**
   * Starts one pull consumer on the plan's one group and topic: it fetches up to `batch` messages, handles
   * them, acknowledges the batch and fetches again, with the system's pull API (see bench/README.md). Systems
   * without one do not run the pull workload.
   */
  pull?(plan: TopicPlan, options: PullOptions, onMessage: OnMessage): Promise<ConsumeHandle>;
  /**
   * MMMQ only: `members` plain HTTP consumers (node:http, one message per push, a dispatcher registered with
   * the defaults of docs/delivery.md § Dispatchers, plus `settings` when given) sharing the plan's one consumer id.
   * Systems without a plain HTTP push contract leave it out.
   */
  plainConsumers?(plan: TopicPlan, members: number, onMessage: OnMemberMessage, settings?: PlainDispatcherSettings): Promise<ConsumeHandle>;
  /**
   * The broker's fsync counters, or why they cannot be read (a broker without `GET /mmmq/storage`). Systems
   * without it are not counted.
   */
  fsyncCounters?(): Promise<FsyncCounters | string>;
  /**
   * MMMQ and RabbitMQ only: the exactly-once-effect pattern on this broker (outbox → relay → broker → consumer with
   * inbox, on PostgreSQL) for one round of the outbox-inbox workload: its tables created in `round.schema`, its queue
   * declared, nothing started. Systems without it are not compared there.
   */
  outboxPipeline?(round: OutboxRound): Promise<OutboxPipeline>;
  /**
   * MMMQ only: its one-app form, a Nest app with the broker, a listener and the producer in a process of its
   * own, listening to `pattern`, ready for the embedded workload's phases. Systems without it run those phases with
   * their own clients.
   */
  startEmbeddedApp?(pattern: string): Promise<EmbeddedApp>;
  /**
   * A request-reply rig on the plan's one topic (queue) whose replier handles up to `concurrency` requests at once.
   * Systems without it do not run the request-reply workload.
   */
  requestReply?(plan: TopicPlan, concurrency: number): Promise<RequestReplyRig>;
  /** Deletes what `declare` and the round created. */
  drop(plan: TopicPlan): Promise<void>;

  /**
   * For the backlog workload. `fresh` gives the system an empty broker (where the bench owns it) so a restart
   * does not replay earlier workloads; `restartAndConsume` stops the broker cleanly, starts it again and
   * starts consuming `plan`. A string says why the system cannot be restarted by the bench.
   */
  readonly restart: RestartSupport | string;
}

export interface RestartSupport {
  fresh(): Promise<void>;
  /** Runs after `declare`, before the backlog is published (MMMQ registers its dispatcher here). */
  beforeFill?(plan: TopicPlan): Promise<void>;
  restartAndConsume(plan: TopicPlan, onMessage: OnMessage): Promise<RestartResult>;
  /** Extra words for the report: how the restart is done. */
  readonly how: string;
}
