import type { DeliveryOptions } from './dispatch/delivery.options';

/** Where the broker keeps its data when no `persistence.rootDir` is given. */
export const DEFAULT_ROOT_DIR = './mmmq';
/** Segment rotation threshold (soft cap: a message is never split across segments). */
export const DEFAULT_SEGMENT_MAX_BYTES = 64 * 1024 * 1024;
/** Largest publish request body accepted before answering 413. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of objects and arrays accepted inside one message's `content`. */
export const DEFAULT_MAX_JSON_DEPTH = 64;
/** Most messages one `POST /mmmq/messages/batch` may carry. */
export const DEFAULT_MAX_BATCH_MESSAGES = 1000;

export interface SegmentOptions {
  /** Rotate the tail segment once its data file reaches this many bytes. Default {@link DEFAULT_SEGMENT_MAX_BYTES}. */
  maxBytes?: number;
}

export interface PersistenceOptions {
  /** Directory holding `dispatchers.json` and `topics/`. Default {@link DEFAULT_ROOT_DIR}. */
  rootDir?: string;
  segment?: SegmentOptions;
}

export interface HttpOptions {
  /**
   * Largest request body of the publish endpoints, in bytes; larger bodies get 413. The whole body is held in
   * memory while it is validated. Default {@link DEFAULT_MAX_BODY_BYTES}.
   */
  maxBodyBytes?: number;
  /**
   * Deepest nesting of objects and arrays allowed in a message's `content`; deeper content gets 400 before
   * it is parsed. Default {@link DEFAULT_MAX_JSON_DEPTH}.
   */
  maxJsonDepth?: number;
  /** Most messages in one batch publish; more get 400. Default {@link DEFAULT_MAX_BATCH_MESSAGES}. */
  maxBatchMessages?: number;
}

export interface MmmqBrokerOptions {
  persistence?: PersistenceOptions;
  http?: HttpOptions;
  /**
   * Push consumers defined in code, in the `dispatchers.json` shape (`host` as URL or object). At boot they are
   * added to the file, replacing an entry with the same `consumerId`. Default none.
   */
  dispatchers?: unknown[];
  /** Push delivery: retries, timeouts, backoff, shutdown grace. */
  delivery?: DeliveryOptions;
}

/** Persistence settings after defaults are applied and validation passed. */
export interface ResolvedPersistenceOptions {
  /** Absolute. */
  rootDir: string;
  segmentMaxBytes: number;
}

/** HTTP limits after defaults are applied and validation passed. */
export interface ResolvedHttpOptions {
  maxBodyBytes: number;
  maxJsonDepth: number;
  maxBatchMessages: number;
}

export const MMMQ_PERSISTENCE_OPTIONS = Symbol('MMMQ_PERSISTENCE_OPTIONS');
export const MMMQ_HTTP_OPTIONS = Symbol('MMMQ_HTTP_OPTIONS');
