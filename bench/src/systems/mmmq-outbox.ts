import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { Producer } from '@mmmq/producer';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Pool, type ClientBase, type PoolClient } from 'pg';
import type { BenchContent } from '../payload';
import { log } from '../services';
import { NEST_LOGGER, startPullConsumerApp } from './mmmq-consumer-app';
import { Inbox, migrate, Outbox, OutboxRelay, OUTBOX_TABLE, pgAdapter } from '@mmmq/postgres';
import { BenchProducerModule, type BenchListener } from './mmmq-nest-modules';
import {
  CONSUMER_CONCURRENCY,
  CONSUMER_PREFETCH,
  PG_CONNECTION,
  RELAY_BATCH,
  RELAY_LEASE_MS,
  RELAY_POOL_SIZE,
  type OutboxPipeline,
  type OutboxRound,
} from './outbox-pipeline';

/**
 * The exactly-once-effect pattern with MMMQ's own parts: @mmmq/postgres's `Outbox` (the row in the writer's
 * transaction), its `OutboxRelay` publishing through a `Producer` of its own over the publish stream (one atomic
 * `produceBatch` per leased batch, ids = the outbox ids), and a consumer Nest app (`MmmqConsumerModule`) whose
 * listener (concurrency {@link CONSUMER_CONCURRENCY}) runs `Inbox.process` and the side effect in one PostgreSQL
 * transaction per message; the library acknowledges when the handler returns, after the commit.
 */
export class MmmqOutboxPipeline implements OutboxPipeline {
  readonly writerKind = 'mmmq';
  private readonly pool = new Pool({ ...PG_CONNECTION, max: CONSUMER_CONCURRENCY });
  private readonly outbox: Outbox<ClientBase>;
  private readonly inbox: Inbox<ClientBase>;
  private app?: INestApplicationContext;
  private producerContext?: INestApplicationContext;
  private relay?: OutboxRelay;
  private closed = false;

  private constructor(
    private readonly round: OutboxRound,
    private readonly endpoints: { broker: string; stream: string },
  ) {
    this.outbox = new Outbox({ adapter: pgAdapter, schema: round.schema });
    this.inbox = new Inbox({ adapter: pgAdapter, schema: round.schema });
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
    this.app = await startPullConsumerApp(this.endpoints.broker, [this.listener()], {
      pull: { prefetch: CONSUMER_PREFETCH },
      workers: { max: CONSUMER_CONCURRENCY },
    });
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
  private listener(): BenchListener {
    const { round, pool, inbox } = this;
    @MMMQListener(round.topic, { name: 'bench-outbox-inbox', consumerId: round.consumerId, concurrency: CONSUMER_CONCURRENCY })
    class OutboxInboxListener implements MMMQListener<BenchContent> {
      async handle(content: BenchContent, context: MessageContext): Promise<void> {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const outcome = await inbox.process(client, context.id, round.consumerId, (tx) => round.sideEffect(tx, context.id, content));
          await client.query('COMMIT');
          if (outcome.status === 'duplicate') round.onDuplicate();
          else round.onCommitted(content);
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        } finally {
          client.release();
        }
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
