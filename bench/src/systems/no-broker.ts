import { Client } from 'pg';
import { InProcessOutboxPipeline } from './in-process-outbox';
import { PG_CONNECTION, type OutboxPipeline, type OutboxRound } from './outbox-pipeline';
import type { ConsumeHandle, System } from './system';

/** The workloads this reference runs. */
const OUTBOX_INBOX = ['outbox-inbox', 'outbox-inbox-backlog'];

/**
 * A reference row for the outbox → inbox workload, not a system: the same PostgreSQL work as the RabbitMQ rows
 * (tables, relay loop, inbox transaction) with the rows handed from relay to consumer in memory, no broker between.
 * On a machine whose cores PostgreSQL shares, its rate is the ceiling of any broker's pattern with that per-message
 * consumer.
 */
export class NoBrokerSystem implements System {
  readonly id = 'no-broker';
  readonly label = 'No broker (in-memory handoff)';
  readonly kind = 'reference' as const;
  readonly description =
    "Not a broker: for the outbox-inbox workloads only, the RabbitMQ rows' outbox and inbox tables and relay loop, whose publish hands the leased rows to the consumer in the same process and resolves at once; the consumer runs the same inbox transaction per message, 16 at a time. Nothing is durable between relay and consumer: it measures what PostgreSQL and the writers allow that per-message consumer.";
  readonly onlyWorkloads = {
    ids: OUTBOX_INBOX,
    why: 'a reference for the outbox-inbox workloads only: there is no broker to measure',
  };
  readonly restart = this.onlyWorkloads.why;

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  brokerPids(): number[] {
    return [];
  }

  async version(): Promise<string> {
    const client = new Client(PG_CONNECTION);
    await client.connect();
    try {
      const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
      return `PostgreSQL ${rows[0].server_version} only`;
    } finally {
      await client.end();
    }
  }

  outboxPipeline(round: OutboxRound): Promise<OutboxPipeline> {
    return InProcessOutboxPipeline.create(round);
  }

  // The runner never calls these: `onlyWorkloads` keeps every other workload away (see `appliesTo`).
  declare(): Promise<void> {
    return this.notApplicable();
  }

  publish(): Promise<void> {
    return this.notApplicable();
  }

  consume(): Promise<ConsumeHandle> {
    return this.notApplicable();
  }

  consumeCompeting(): Promise<ConsumeHandle> {
    return this.notApplicable();
  }

  drop(): Promise<void> {
    return this.notApplicable();
  }

  private notApplicable(): Promise<never> {
    return Promise.reject(new Error(this.onlyWorkloads.why));
  }
}
