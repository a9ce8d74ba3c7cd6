import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { backoffDelay, InvalidMessageError, type MessageHeaders, OUTBOX_HEADERS, type PublishedMessage } from '@mmmq/core';
import { Producer } from '@mmmq/producer';
import { createProducer } from '@mmmq/producer/internal';
import { Logger } from '@nestjs/common';
import { Pool, type QueryResult, type QueryResultRow } from 'pg';
import { InvalidOutboxOptionsError } from '../errors/invalid-outbox-options.error';
import { relayedHeaders } from '../outbox/outbox-message';
import { outboxChannel } from '../outbox/outbox-table';
import { OutboxListener } from './outbox-listener';
import { resolveRelayOptions, ResolvedRelayOptions } from './outbox-relay-options.resolver';
import type { OutboxRelayOptions } from './outbox-relay.options';
import { OutboxLease, OutboxRow, OutboxRowRecord, toOutboxRow } from './outbox-row';
import { classifyPublishFailure, failureReason } from './publish-outcome';
import { RelayQueries } from './relay-queries';

/** Connections of the relay's pool unless `connection.max` says otherwise (LISTEN has its own). */
export const RELAY_POOL_SIZE = 2;

/**
 * Wait before looking again when the relay could not take the waiting lock because writers were committing without
 * a NOTIFY: their rows are about to be visible.
 */
export const WRITERS_COMMITTING_RETRY_MS = 10;

/** How the rows of one lease ended. */
export interface RelayResult {
  published: number;
  ambiguous: number;
  failed: number;
  /** Released unsent (the producer was closed), or no longer held by this lease when marked. */
  released: number;
}

/**
 * Publishes the outbox's rows to the broker: leases a batch (`FOR UPDATE SKIP LOCKED`, so several relays share
 * one table), publishes it as one atomic batch with the rows' own message ids and the `OUTBOX_HEADERS`, and marks
 * each row PUBLISHED, AMBIGUOUS (retried later with the same id) or FAILED. Wakes on NOTIFY, polls every
 * `pollIntervalMs` at most, and deletes old PUBLISHED rows. `start()` it; `close()` it.
 */
export class OutboxRelay {
  private readonly logger = new Logger('MmmqOutboxRelay');
  private readonly options: ResolvedRelayOptions;
  private readonly pool: Pool;
  private readonly producer: Producer;
  private readonly ownsProducer: boolean;
  private readonly queries: RelayQueries;
  private readonly listener: OutboxListener;
  private readonly closing = new AbortController();
  /** Its statements' names by text: a handful of statements, run thousands of times. */
  private readonly statementNames = new Map<string, string>();
  private leases = 0;
  private woken = false;
  private wakeUp?: () => void;
  private running?: Promise<void>;
  private retention?: Promise<void>;
  private closed?: Promise<void>;

  /** @throws InvalidOutboxOptionsError naming the option */
  constructor(options: OutboxRelayOptions) {
    this.options = resolveRelayOptions(options);
    const { producer, connection, schema, orderByAggregate, reconnectDelayMs } = this.options;
    this.ownsProducer = !(producer instanceof Producer);
    this.producer = producer instanceof Producer ? producer : createProducer(producer);
    // The relay's round and the retention job: two connections are all it uses at once.
    this.pool = new Pool({ max: RELAY_POOL_SIZE, ...connection });
    // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
    this.pool.on('error', (error) => this.logger.warn(`Outbox relay pool: ${error.message}`));
    this.queries = new RelayQueries(schema, orderByAggregate);
    this.listener = new OutboxListener(connection, outboxChannel(schema), reconnectDelayMs, () => this.wake(), this.logger);
  }

  /** This relay's name, the prefix of its lease tokens. */
  get relayId(): string {
    return this.options.relayId;
  }

  /** Starts listening and relaying (and the retention job). Resolves once the first LISTEN was attempted. */
  async start(): Promise<void> {
    if (this.running !== undefined || this.closing.signal.aborted) return;
    this.running = this.run();
    if (this.options.retention !== undefined) this.retention = this.retain(this.options.retention);
    await this.listener.start();
  }

  /**
   * Leases up to `limit` claimable rows for `leaseMs`, oldest first: PENDING or AMBIGUOUS rows that are due and
   * not leased (or whose lease expired), skipping rows another relay is leasing right now.
   */
  async leaseBatch(limit = this.options.batchSize, leaseMs = this.options.leaseMs): Promise<OutboxLease> {
    const owner = `${this.options.relayId}#${++this.leases}`;
    const { rows } = await this.query<OutboxRowRecord>(this.queries.lease, [limit, owner, leaseMs]);
    return { owner, rows: rows.map(toOutboxRow).sort((a, b) => a.position - b.position) };
  }

  /**
   * Publishes a lease's rows as one atomic batch and marks them. When the batch is rejected, each row is published
   * on its own, so one row the broker refuses fails alone. Marks change only rows this lease still holds.
   */
  async publishLease(lease: OutboxLease): Promise<RelayResult> {
    const result: RelayResult = { published: 0, ambiguous: 0, failed: 0, released: 0 };
    if (lease.rows.length === 0) return result;
    const outcome = await this.publishRows(lease, lease.rows, result);
    if (outcome === 'rejected' && lease.rows.length > 1) {
      for (const row of lease.rows) await this.publishRows(lease, [row], result);
    }
    return result;
  }

  /** Leases one batch and publishes it; resolves with how its rows ended. */
  async relayOnce(): Promise<RelayResult & { leased: number }> {
    const lease = await this.leaseBatch();
    return { leased: lease.rows.length, ...(await this.publishLease(lease)) };
  }

  /**
   * Deletes PUBLISHED rows published more than `maxAgeMs` ago, in batches of `batchSize`; resolves with the count.
   * @throws InvalidOutboxOptionsError when retention is off and either argument is missing
   */
  async purgePublished(maxAgeMs?: number, batchSize?: number): Promise<number> {
    const retention = this.options.retention;
    const age = maxAgeMs ?? retention?.maxAgeMs;
    const size = batchSize ?? retention?.batchSize;
    if (age === undefined || size === undefined) {
      throw new InvalidOutboxOptionsError('purgePublished() needs maxAgeMs and batchSize when the relay option retention is false');
    }
    let deleted = 0;
    for (;;) {
      const { rowCount } = await this.query(this.queries.purgePublished, [age, size]);
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < size || this.closing.signal.aborted) return deleted;
    }
  }

  /**
   * Stops leasing, lets the round in progress finish publishing and marking, stops the retention job, closes
   * the LISTEN connection, its own producer and the pool. Rows it still held (none, unless a mark failed) are
   * claimable again once their lease expires. Idempotent.
   */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing.abort();
    this.wakeUp?.();
    await Promise.allSettled([this.running, this.retention]);
    await Promise.allSettled([this.listener.close(), this.ownsProducer ? this.producer.close() : undefined]);
    await this.pool.end().catch(() => undefined);
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /**
   * Rounds back to back while they find rows: writers do not NOTIFY a busy relay (a NOTIFY serialises their commits,
   * see migrations/0003_outbox_notify_waiting.sql). Once a round finds nothing, the relay takes the waiting lock,
   * which makes writers NOTIFY, looks once more (a row committed before the lock got no NOTIFY) and only then sleeps.
   */
  private async run(): Promise<void> {
    let failures = 0;
    while (!this.closing.signal.aborted) {
      let leased: number;
      try {
        // Woken by a writer's NOTIFY: rows are waiting. Give the lock back before the round, not after it: every
        // commit while it is held NOTIFYs, and commits that NOTIFY are serialised.
        if (this.woken) await this.listener.busy();
        this.woken = false;
        ({ leased } = await this.relayOnce());
        failures = 0;
      } catch (error) {
        failures++;
        const waitMs = backoffDelay(failures, {
          initialMs: this.options.reconnectDelayMs,
          multiplier: 2,
          maxMs: this.options.pollIntervalMs,
          jitter: 0.2,
        });
        this.logger.warn(`Outbox relay round failed: ${failureReason(error)}; retrying in ${waitMs} ms`);
        await this.sleep(waitMs);
        continue;
      }
      if (leased > 0) {
        // Busy: writers need not NOTIFY, the next round comes at once.
        await this.listener.busy();
        continue;
      }
      const registration = await this.listener.wait();
      // Just taken: a row committed before it got no NOTIFY, so look once more before sleeping.
      if (registration === 'acquired') continue;
      if (registration === 'writers-committing') await this.sleep(WRITERS_COMMITTING_RETRY_MS);
      else await this.sleep(await this.idleMs(leased));
    }
  }

  /**
   * How long to wait for a NOTIFY: until the next retry or lease expiry is due, at most the poll interval. A row
   * that is due although the round leased nothing is one the lease cannot take yet (locked by another relay's
   * lease statement, say): waiting `reconnectDelayMs` then keeps the relay from spinning on it.
   */
  private async idleMs(leased: number): Promise<number> {
    const { pollIntervalMs, reconnectDelayMs } = this.options;
    try {
      const { rows } = await this.query<{ due_in_ms: string | null }>(this.queries.nextDue, []);
      const due = rows[0]?.due_in_ms;
      if (due === null || due === undefined) return pollIntervalMs;
      const dueMs = Number(due);
      if (dueMs <= 0 && leased === 0) return Math.min(pollIntervalMs, reconnectDelayMs);
      return Math.min(pollIntervalMs, Math.max(0, dueMs));
    } catch {
      return pollIntervalMs;
    }
  }

  /** Sleeps `ms`, ending early on NOTIFY (also one that came during the round) or close. */
  private async sleep(ms: number): Promise<void> {
    if (this.woken || this.closing.signal.aborted || ms <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
    this.wakeUp = undefined;
  }

  private async retain(retention: NonNullable<ResolvedRelayOptions['retention']>): Promise<void> {
    while (!this.closing.signal.aborted) {
      try {
        await this.purgePublished();
      } catch (error) {
        this.logger.warn(`Outbox retention failed: ${failureReason(error)}; trying again in ${retention.intervalMs} ms`);
      }
      await delay(retention.intervalMs, undefined, { signal: this.closing.signal }).catch(() => undefined);
    }
  }

  /** Publishes `rows` of `lease` as one request and marks them; resolves with the failure kind, if any. */
  private async publishRows(lease: OutboxLease, rows: OutboxRow[], result: RelayResult): Promise<'rejected' | undefined> {
    const ids = rows.map((row) => row.messageId);
    let published: PublishedMessage[];
    try {
      published = await this.producer.produceBatch(
        rows.map((row) => ({
          topic: row.topic,
          id: row.messageId,
          content: parseContent(row),
          ...scheduleOf(relayedHeaders(row.messageId, row, row.createdAt)),
          // Never the topic's default: on a nonPersistent topic the ACK would come before the message is durable, so
          // PUBLISHED would not mean the broker keeps it (and there would be no offset).
          deliveryMode: 'persistent',
        })),
      );
    } catch (error) {
      const kind = classifyPublishFailure(error);
      if (kind === 'rejected' && rows.length > 1) return 'rejected';
      const reason = failureReason(error);
      if (kind === 'rejected') {
        result.failed += await this.mark(this.queries.markFailed, [lease.owner, ids, reason]);
        this.logger.warn(`Outbox message ${ids[0]} to ${rows[0].topic} FAILED: ${reason}`);
      } else if (kind === 'unsent') {
        result.released += await this.mark(this.queries.release, [lease.owner, ids]);
      } else {
        const delays = rows.map((row) => backoffDelay(row.attempts, { ...this.options.retry, multiplier: 2, jitter: 0.2 }));
        result.ambiguous += await this.mark(this.queries.markAmbiguous, [lease.owner, ids, reason, delays]);
        this.logger.warn(`Publishing ${ids.length} outbox message(s) is AMBIGUOUS, retried later with the same id(s): ${reason}`);
      }
      return undefined;
    }
    const offsets = published.map((message) => ('offset' in message ? message.offset : null));
    const marked = await this.mark(this.queries.markPublished, [lease.owner, ids, offsets]);
    result.published += marked;
    // A lease that expired and was taken over: the other relay publishes the same ids, which the broker de-duplicates.
    result.released += ids.length - marked;
    return undefined;
  }

  private async mark(text: string, values: unknown[]): Promise<number> {
    const { rowCount } = await this.query(text, values);
    return rowCount ?? 0;
  }

  /**
   * Runs one of the relay's own statements as a prepared statement (its pool is its own): PostgreSQL parses and
   * plans the lease and the marks once per connection instead of once per round.
   */
  private query<R extends QueryResultRow = QueryResultRow>(text: string, values: unknown[]): Promise<QueryResult<R>> {
    let name = this.statementNames.get(text);
    if (name === undefined) this.statementNames.set(text, (name = statementName(text)));
    return this.pool.query<R>({ name, text, values });
  }
}

/** A prepared statement's name, the same for the same text on every connection. */
function statementName(text: string): string {
  return `mmmq_relay_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
}

/** The row's content; text that is not JSON (a row written by hand) is a validation failure, so the row FAILS. */
function parseContent(row: OutboxRow): unknown {
  try {
    return JSON.parse(row.content);
  } catch (error) {
    throw new InvalidMessageError(`Outbox row ${row.messageId} has content that is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** A scheduled row's due time leaves its headers and becomes the publish's `deliverAt`. */
function scheduleOf(relayed: MessageHeaders): { headers: MessageHeaders; deliverAt?: string } {
  const { [OUTBOX_HEADERS.deliverAt]: deliverAt, ...headers } = relayed;
  return deliverAt === undefined ? { headers } : { headers, deliverAt: String(deliverAt) };
}
