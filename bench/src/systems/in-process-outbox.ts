import { Pool, type PoolClient } from 'pg';
import { decode, encode, type BenchContent } from '../payload';
import { log } from '../services';
import { CONSUMER_CONCURRENCY, PG_CONNECTION, type OutboxPipeline, type OutboxRound } from './outbox-pipeline';
import { OutboxTables, type LeasedRow } from './outbox-tables';
import { PollingRelay } from './polling-relay';

/**
 * The exactly-once-effect pattern with no broker at all: the bench's own outbox and inbox tables and relay loop (as
 * on RabbitMQ's side), whose "publish" hands the leased rows to the consumer in the same process and resolves at
 * once, and a consumer that runs the same inbox transaction per message, {@link CONSUMER_CONCURRENCY} at a time.
 * Nothing is durable between relay and consumer, so it is not a way to build the pattern: it measures what the
 * PostgreSQL work and the writers alone allow on this machine, the ceiling any broker's figure stays under.
 */
export class InProcessOutboxPipeline implements OutboxPipeline {
  readonly writerKind = 'tables';
  private readonly tables: OutboxTables;
  private readonly consumerPool = new Pool({ ...PG_CONNECTION, max: CONSUMER_CONCURRENCY });
  private readonly queue: LeasedRow[] = [];
  private readonly idle: Array<() => void> = [];
  private relay?: PollingRelay;
  private consumers: Promise<void>[] = [];
  private closed = false;

  private constructor(private readonly round: OutboxRound) {
    this.tables = new OutboxTables(round.schema);
    this.consumerPool.on('error', (error) => log(`in-process outbox consumer pool: ${error.message}`));
  }

  /** Creates the round's outbox and inbox tables. */
  static async create(round: OutboxRound): Promise<InProcessOutboxPipeline> {
    const pipeline = new InProcessOutboxPipeline(round);
    try {
      await pipeline.tables.create(pipeline.consumerPool);
    } catch (error) {
      await pipeline.close();
      throw error;
    }
    return pipeline;
  }

  add(client: PoolClient, messageId: string, content: BenchContent): Promise<void> {
    return this.tables.add(client, messageId, this.round.topic, encode(content).toString('utf8'));
  }

  async start(): Promise<void> {
    this.consumers = Array.from({ length: CONSUMER_CONCURRENCY }, () => this.consume());
    this.relay = new PollingRelay(this.tables, async (rows) => {
      this.queue.push(...rows);
      for (const wake of this.idle.splice(0)) wake();
    });
    await this.relay.start();
  }

  /** One of the consumer's workers: the next handed-over row, its inbox transaction, until close. */
  private async consume(): Promise<void> {
    while (!this.closed) {
      const row = this.queue.shift();
      if (!row) {
        await new Promise<void>((resolve) => this.idle.push(resolve));
        continue;
      }
      const client = await this.consumerPool.connect();
      try {
        const content = decode(row.content);
        await client.query('BEGIN');
        const fresh = await this.tables.reserve(client, row.messageId, this.round.consumerId);
        if (fresh) await this.round.sideEffect(client, row.messageId, content);
        await client.query('COMMIT');
        if (fresh) this.round.onCommitted(content);
        else this.round.onDuplicate();
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (!this.closed) log(`in-process outbox consumer: ${(error as Error).message}`);
      } finally {
        client.release();
      }
    }
  }

  unpublished(): Promise<number> {
    return this.tables.unpublished(this.consumerPool);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.relay?.close();
    for (const wake of this.idle.splice(0)) wake();
    await Promise.allSettled(this.consumers);
    await this.consumerPool.end().catch(() => undefined);
  }
}
