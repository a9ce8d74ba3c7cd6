import type { ClientBase, PoolClient } from 'pg';
import type { BenchContent } from '../payload';

/** PostgreSQL of the outbox → inbox workload: the machine's server, trust auth (as the tests use). */
export const PG_CONNECTION = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' } as const;
/** Rows a relay leases, publishes and marks at once (`leaseBatch(100, 30 s)`, as in docs/exactly-once.md), on both sides. */
export const RELAY_BATCH = 100;
/** How long a leased batch is the relay's; another relay may take the rows after it. */
export const RELAY_LEASE_MS = 30_000;
/** Connections of each relay's own pool, which leases and marks one batch at a time; its LISTEN connection is apart. */
export const RELAY_POOL_SIZE = 1;
/**
 * Messages the RabbitMQ and no-broker consumers handle at once, each in its own PostgreSQL transaction, and the
 * connections of their pool. MMMQ's inbox groups deliveries instead (`MMMQ_INBOX_GROUP_COMMIT`).
 */
export const CONSUMER_CONCURRENCY = 16;
/** Messages the consumer holds unacknowledged at most (RabbitMQ's `prefetch`, MMMQ's `pull.prefetch`), on both sides. */
export const CONSUMER_PREFETCH = 1000;

/** What the workload gives a pipeline for one round: where its tables go and what the consumer does. */
export interface OutboxRound {
  /** This round's PostgreSQL schema, created (empty) by the workload and dropped after the round. */
  schema: string;
  /** The topic (RabbitMQ: routing key and queue) the business events go to; unique to the round. */
  topic: string;
  /** The consumer's consumer id: the inbox's second key column. */
  consumerId: string;
  /** The side effect, run inside the consumer's transaction once the inbox reserved the message. */
  sideEffect(client: ClientBase, messageId: string, content: BenchContent): Promise<void>;
  /** The consumer's transaction committed with the side effect (before the message is acknowledged). */
  onCommitted(content: BenchContent): void;
  /** The inbox already held the message: nothing ran, the delivery is acknowledged. */
  onDuplicate(): void;
}

/**
 * One system's form of the exactly-once-effect pattern: an outbox table the writer's transaction adds to, a relay
 * that publishes it, and a consumer that reserves each message in an inbox table in the transaction of its side
 * effect. Built by `System.outboxPipeline`, started once the writers are ready.
 */
export interface OutboxPipeline {
  /** Which outbox code a writer thread uses to add rows for this system (`runWritersOnThread`). */
  readonly writerKind: 'mmmq' | 'tables';
  /** Adds the message to the outbox in `client`'s open transaction (the writer's, beside its business row). */
  add(client: PoolClient, messageId: string, content: BenchContent): Promise<void>;
  /** Starts the consumer and the relay. */
  start(): Promise<void>;
  /** Outbox rows not yet marked published, for the round's note when it did not finish. */
  unpublished(): Promise<number>;
  close(): Promise<void>;
}
