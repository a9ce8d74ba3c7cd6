import type { MmmqProducerOptions, Producer } from '@mmmq/producer';
import type { PoolConfig } from 'pg';

/** Rows leased, and published as one batch, per round. */
export const DEFAULT_RELAY_BATCH_SIZE = 100;
/** How long a lease lasts: a relay that dies holding rows delays them this long, and loses none. */
export const DEFAULT_RELAY_LEASE_MS = 30_000;
/**
 * Retries after the first attempt of the producer the relay makes from options, unless `producer.maxRetryCount` is
 * given: few, because the relay retries AMBIGUOUS rows itself, and a publish must end within its lease.
 */
export const DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT = 1;
/**
 * Longest wait between two attempts (`Retry-After` included) of the producer the relay makes, unless
 * `producer.maxRetryDelayMs` is given; at most a tenth of `leaseMs`.
 */
export const DEFAULT_RELAY_PRODUCER_MAX_RETRY_DELAY_MS = 1_000;
/** Longest wait between two looks at the table when no NOTIFY arrives (a lost notification, a manual insert). */
export const DEFAULT_RELAY_POLL_INTERVAL_MS = 5_000;
/** First wait before an AMBIGUOUS row is retried; doubles per attempt up to {@link DEFAULT_RELAY_RETRY_MAX_MS}. */
export const DEFAULT_RELAY_RETRY_INITIAL_MS = 1_000;
/** Longest wait before an AMBIGUOUS row is retried. */
export const DEFAULT_RELAY_RETRY_MAX_MS = 60_000;
/** Wait before the LISTEN connection is opened again after it failed (and after a failed round). */
export const DEFAULT_RELAY_RECONNECT_DELAY_MS = 1_000;
/** PUBLISHED rows older than this are deleted by the retention job: 7 days. */
export const DEFAULT_OUTBOX_RETENTION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** How often the retention job runs: every 10 minutes. */
export const DEFAULT_OUTBOX_RETENTION_INTERVAL_MS = 10 * 60 * 1000;
/** Rows deleted per statement by the retention job, so it never holds many locks or a long transaction. */
export const DEFAULT_OUTBOX_RETENTION_BATCH_SIZE = 1_000;

export interface OutboxRetentionOptions {
  /** Age, since publication, at which a PUBLISHED row is deleted. Default {@link DEFAULT_OUTBOX_RETENTION_MAX_AGE_MS}. */
  maxAgeMs?: number;
  /** How often the job runs. Default {@link DEFAULT_OUTBOX_RETENTION_INTERVAL_MS}. */
  intervalMs?: number;
  /** Rows per DELETE. Default {@link DEFAULT_OUTBOX_RETENTION_BATCH_SIZE}. */
  batchSize?: number;
}

export interface OutboxRelayOptions {
  /** The database: a connection string or `pg` pool settings. The relay opens its own pool and one LISTEN connection. */
  connection: string | PoolConfig;
  /**
   * Where to publish: producer options (the relay makes and closes its own producer), or a `Producer` you own. The
   * relay's own producer gets retry and timeout settings that end one publish within half a lease, for each of
   * `maxRetryCount`, `maxRetryDelayMs` and `timeoutMs` not given ({@link DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT},
   * {@link DEFAULT_RELAY_PRODUCER_MAX_RETRY_DELAY_MS}, and the producer's `DEFAULT_TIMEOUT_MS` shortened to fit);
   * given ones that let a publish outlast the lease are refused.
   */
  producer: MmmqProducerOptions | Producer;
  /** The schema of the outbox table. Default `public`. */
  schema?: string;
  /** Rows per lease and per published batch. Default {@link DEFAULT_RELAY_BATCH_SIZE}. */
  batchSize?: number;
  /**
   * Lease length in ms. It must be longer than one publish with the producer's retries,
   * `(maxRetryCount + 1) × timeoutMs + maxRetryCount × maxRetryDelayMs`: a lease that expires during a publish lets
   * another relay publish the row too (with the same id, which broker de-duplication drops). With producer options
   * this is checked at start-up; with a `Producer` of your own, it is up to you. Default {@link DEFAULT_RELAY_LEASE_MS}.
   */
  leaseMs?: number;
  /** Fallback poll interval in ms; NOTIFY wakes the relay at once. Default {@link DEFAULT_RELAY_POLL_INTERVAL_MS}. */
  pollIntervalMs?: number;
  /**
   * Keep the order of writing per aggregate (`aggregateType` + `aggregateId`): a row is not leased while an earlier
   * row of its aggregate is PENDING, AMBIGUOUS or leased. Default `false`.
   */
  orderByAggregate?: boolean;
  /** Backoff of AMBIGUOUS rows. Defaults {@link DEFAULT_RELAY_RETRY_INITIAL_MS}, {@link DEFAULT_RELAY_RETRY_MAX_MS}. */
  retry?: { initialMs?: number; maxMs?: number };
  /** Wait before reconnecting LISTEN after an error. Default {@link DEFAULT_RELAY_RECONNECT_DELAY_MS}. */
  reconnectDelayMs?: number;
  /** Deleting old PUBLISHED rows; `false` turns it off. Defaults in {@link OutboxRetentionOptions}. */
  retention?: false | OutboxRetentionOptions;
  /** This relay's name in `lease_owner` and in logs. Default `<hostname>-<pid>-<random>`. */
  relayId?: string;
}
