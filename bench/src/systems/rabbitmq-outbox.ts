import amqp from 'amqplib';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import { Pool, type PoolClient } from 'pg';
import { decode, encode, type BenchContent } from '../payload';
import { log } from '../services';
import { CONSUMER_CONCURRENCY, CONSUMER_PREFETCH, PG_CONNECTION, type OutboxPipeline, type OutboxRound } from './outbox-pipeline';
import { OutboxTables, type LeasedRow } from './outbox-tables';
import { PollingRelay } from './polling-relay';

const URL = 'amqp://guest:guest@127.0.0.1:5672';
const EXCHANGE = 'mmmq-bench-outbox';

/**
 * The exactly-once-effect pattern built on RabbitMQ, as its users build it: an outbox table written in the business
 * transaction, a relay ({@link PollingRelay}: batches of 100, `FOR UPDATE SKIP LOCKED`, woken by NOTIFY) publishing
 * persistent messages (`message_id` = the outbox id) with publisher confirms to a durable queue and marking the rows
 * PUBLISHED once every confirm of the batch came, and a consumer (prefetch 1000) that for each message opens a
 * PostgreSQL transaction, reserves it in the inbox table (`INSERT … ON CONFLICT DO NOTHING`), runs the side effect,
 * commits, and only then acknowledges (`basic.ack`). Its own connection, apart from the system's publisher.
 */
export class RabbitOutboxPipeline implements OutboxPipeline {
  readonly writerKind = 'tables';
  private readonly tables: OutboxTables;
  private readonly consumerPool = new Pool({ ...PG_CONNECTION, max: CONSUMER_CONCURRENCY });
  private connection?: ChannelModel;
  private publisher?: ConfirmChannel;
  private consumer?: Channel;
  private relay?: PollingRelay;
  private readonly handling = new Set<Promise<void>>();
  private closed = false;

  private constructor(private readonly round: OutboxRound) {
    this.tables = new OutboxTables(round.schema);
    this.consumerPool.on('error', (error) => log(`RabbitMQ outbox consumer pool: ${error.message}`));
  }

  /** Creates the round's outbox and inbox tables and its queue (`x-queue-type` `queueType`), bound to its topic. */
  static async create(round: OutboxRound, queueType: 'classic' | 'quorum'): Promise<RabbitOutboxPipeline> {
    const pipeline = new RabbitOutboxPipeline(round);
    try {
      await pipeline.tables.create(pipeline.consumerPool);
      const connection = await amqp.connect(URL);
      pipeline.connection = connection;
      connection.on('error', (error: Error) => log(`RabbitMQ outbox: connection error: ${error.message}`));
      pipeline.publisher = await connection.createConfirmChannel();
      await pipeline.publisher.assertExchange(EXCHANGE, 'direct', { durable: true });
      await pipeline.publisher.assertQueue(round.topic, { durable: true, arguments: { 'x-queue-type': queueType } });
      await pipeline.publisher.bindQueue(round.topic, EXCHANGE, round.topic);
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
    this.consumer = await this.connection!.createChannel();
    this.consumer.on('error', (error: Error) => log(`RabbitMQ outbox: consumer channel error: ${error.message}`));
    await this.consumer.prefetch(CONSUMER_PREFETCH, false);
    await this.consumer.consume(this.round.topic, (message) => message && this.track(this.handle(message)), { noAck: false });
    this.relay = new PollingRelay(this.tables, (rows) => this.publishConfirmed(rows));
    await this.relay.start();
  }

  /** Every row persistent with its outbox id as `message_id`; resolves once the broker confirmed all of them. */
  private publishConfirmed(rows: LeasedRow[]): Promise<void> {
    const channel = this.publisher!;
    return Promise.all(
      rows.map(
        (row) =>
          new Promise<void>((resolve, reject) => {
            channel.publish(
              EXCHANGE,
              row.topic,
              Buffer.from(row.content),
              { persistent: true, messageId: row.messageId, contentType: 'application/json' },
              (error) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()),
            );
          }),
      ),
    ).then(() => undefined);
  }

  private track(work: Promise<void>): void {
    this.handling.add(work);
    void work.finally(() => this.handling.delete(work));
  }

  /** Inbox reservation and side effect in one transaction, then the ack; a failure rolls back and requeues. */
  private async handle(message: ConsumeMessage): Promise<void> {
    const channel = this.consumer!;
    const messageId = String(message.properties.messageId);
    let client: PoolClient | undefined;
    try {
      const content = decode(message.content);
      client = await this.consumerPool.connect();
      await client.query('BEGIN');
      const fresh = await this.tables.reserve(client, messageId, this.round.consumerId);
      if (fresh) await this.round.sideEffect(client, messageId, content);
      await client.query('COMMIT');
      if (fresh) this.round.onCommitted(content);
      else this.round.onDuplicate();
      channel.ack(message);
    } catch (error) {
      await client?.query('ROLLBACK').catch(() => undefined);
      if (this.closed) return;
      log(`RabbitMQ outbox consumer: ${(error as Error).message}`);
      channel.nack(message, false, true);
    } finally {
      client?.release();
    }
  }

  unpublished(): Promise<number> {
    return this.tables.unpublished(this.consumerPool);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.relay?.close();
    // Handlers still running ack on the channel; what is not acked when it closes is requeued (and the queue goes).
    await Promise.allSettled([...this.handling]);
    await this.consumer?.close().catch(() => undefined);
    await this.publisher?.deleteQueue(this.round.topic).catch(() => undefined);
    await this.connection?.close().catch(() => undefined);
    await this.consumerPool.end().catch(() => undefined);
  }
}
