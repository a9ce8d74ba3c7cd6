import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { Producer } from '@mmmq/producer';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Pool, type ClientBase, type PoolClient } from 'pg';
import type { BenchContent } from '../payload';
import { log } from '../services';
import { NEST_LOGGER, startPullConsumerApp } from './mmmq-consumer-app';
import {
  migrate,
  MmmqInboxModule,
  Outbox,
  OutboxRelay,
  OUTBOX_TABLE,
  pgAdapter,
  pgTransaction,
  type InboxGroupCommitOptions,
  type TransactionRunner,
} from '@mmmq/postgres';
import { BenchProducerModule, type BenchListener } from './mmmq-nest-modules';
import {
  CONSUMER_PREFETCH,
  PG_CONNECTION,
  RELAY_BATCH,
  RELAY_LEASE_MS,
  RELAY_POOL_SIZE,
  type OutboxPipeline,
  type OutboxRound,
} from './outbox-pipeline';

/** The inbox's group commit: deliveries a transaction, transactions at once (= the consumer's pool). */
export const MMMQ_INBOX_GROUP_COMMIT = { maxMessages: 100, maxTransactions: 4 } satisfies InboxGroupCommitOptions;
/**
 * Deliveries the MMMQ listener handles at once (`concurrency`, `workers.max`): enough to fill every open group, since
 * a delivery waiting for its group holds its slot.
 */
export const MMMQ_INBOX_CONCURRENCY = 400;

/**
 * The exactly-once-effect pattern with MMMQ's own parts: @mmmq/postgres's `Outbox` (the row in the writer's
 * transaction), its `OutboxRelay` publishing through a `Producer` of its own over the publish stream (one atomic
 * `produceBatch` per leased batch, ids = the outbox ids), and a consumer Nest app (`MmmqConsumerModule` with
 * `MmmqInboxModule`, `groupCommit` {@link MMMQ_INBOX_GROUP_COMMIT}) whose `inbox: true` listener writes the side effect
 * in the inbox's transaction; the library acknowledges after the commit. A redelivery the inbox suppresses is
 * acknowledged without running the handler, so this pipeline never reports one (the exactly-one-row check still holds).
 */
export class MmmqOutboxPipeline implements OutboxPipeline {
  readonly writerKind = 'mmmq';
  private readonly pool = new Pool({ ...PG_CONNECTION, max: MMMQ_INBOX_GROUP_COMMIT.maxTransactions });
  private readonly outbox: Outbox<ClientBase>;
  private app?: INestApplicationContext;
  private producerContext?: INestApplicationContext;
  private relay?: OutboxRelay;
  private closed = false;

  private constructor(
    private readonly round: OutboxRound,
    private readonly endpoints: { broker: string; stream: string },
  ) {
    this.outbox = new Outbox({ adapter: pgAdapter, schema: round.schema });
    this.pool.on('error', (error) => log(`MMMQ outbox consumer pool: ${error.message}`));
  }

  /** Migrates the round's schema (the outbox and inbox tables). */
  static async create(round: OutboxRound, endpoints: { broker: string; stream: string }): Promise<MmmqOutboxPipeline> {
    const pipeline = new MmmqOutboxPipeline(round, endpoints);
    try {
      await migrate(pipeline.pool, { schema: round.schema });
    } catch (error) {
      await pipeline.close();
      throw error;
    }
    return pipeline;
  }

  async add(client: PoolClient, messageId: string, content: BenchContent): Promise<void> {
    await this.outbox.add(client, this.round.topic, content, { id: messageId });
  }

  async start(): Promise<void> {
    const transaction = afterCommit(pgTransaction(this.pool));
    const inbox = MmmqInboxModule.forRoot({
      adapter: pgAdapter,
      transaction: transaction.run,
      schema: this.round.schema,
      groupCommit: MMMQ_INBOX_GROUP_COMMIT,
      retention: { intervalMs: 0 },
    });
    this.app = await startPullConsumerApp(
      this.endpoints.broker,
      [this.listener(transaction.then)],
      { pull: { prefetch: CONSUMER_PREFETCH }, workers: { max: MMMQ_INBOX_CONCURRENCY } },
      [inbox],
    );
    this.producerContext = await NestFactory.createApplicationContext(BenchProducerModule.register(this.endpoints.stream), {
      logger: NEST_LOGGER,
    });
    this.relay = new OutboxRelay({
      connection: { ...PG_CONNECTION, max: RELAY_POOL_SIZE },
      producer: this.producerContext.get(Producer),
      schema: this.round.schema,
      batchSize: RELAY_BATCH,
      leaseMs: RELAY_LEASE_MS,
    });
    await this.relay.start();
  }

  /** A listener instance of its own class: its topic and consumer id are the round's. */
  private listener(then: AfterCommit['then']): BenchListener {
    const { round } = this;
    @MMMQListener(round.topic, {
      name: 'bench-outbox-inbox',
      consumerId: round.consumerId,
      concurrency: MMMQ_INBOX_CONCURRENCY,
      inbox: true,
    })
    class OutboxInboxListener implements MMMQListener<BenchContent> {
      async handle(content: BenchContent, context: MessageContext): Promise<void> {
        const tx = context.inboxTransaction<PoolClient>();
        await round.sideEffect(tx, context.id, content);
        then(tx, () => round.onCommitted(content));
      }
    }
    return new OutboxInboxListener();
  }

  async unpublished(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${this.round.schema}".${OUTBOX_TABLE} WHERE status <> 'PUBLISHED'`,
    );
    return Number(rows[0].n);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.relay?.close().catch((error: Error) => log(`MMMQ outbox relay: ${error.message}`));
    await this.producerContext?.close().catch(() => undefined);
    await this.app?.close().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}

interface AfterCommit {
  run: TransactionRunner<PoolClient>;
  /** Runs `task` once `tx` committed (never, when it rolls back). */
  then(tx: PoolClient, task: () => void): void;
}

/** `transaction`, and tasks to run after its commits: the round counts a side effect once it committed. */
function afterCommit(transaction: TransactionRunner<PoolClient>): AfterCommit {
  const pending = new WeakMap<PoolClient, (() => void)[]>();
  return {
    async run(work) {
      const tasks: (() => void)[] = [];
      const result = await transaction((tx) => {
        pending.set(tx, tasks);
        return work(tx).finally(() => pending.delete(tx));
      });
      for (const task of tasks) task();
      return result;
    },
    then(tx, task) {
      pending.get(tx)?.push(task);
    },
  };
}
