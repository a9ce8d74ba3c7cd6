import type { FsyncMode } from '@mmmq/core';

/** Where the broker keeps its data when no `persistence.rootDir` is given. */
export const DEFAULT_ROOT_DIR = './mmmq';
/** Segment rotation threshold (soft cap: a message is never split across segments). */
export const DEFAULT_SEGMENT_MAX_BYTES = 64 * 1024 * 1024;
/**
 * The journal's flush makes the topic files durable (fsyncing only the dirty ones) and lets the journal drop what
 * they cover: at the latest this long after the previous flush, sooner when {@link DEFAULT_FLUSH_BYTES} of journal
 * have been written. Longer means fewer fsyncs of topic files, a longer journal to replay after a crash.
 */
export const DEFAULT_FLUSH_INTERVAL_MS = 10_000;
/** Journal bytes written since the last flush that start the next one; also bounds the journal's size on disk. */
export const DEFAULT_FLUSH_BYTES = 64 * 1024 * 1024;
/** Publishes' journal records are fsync'd before their ACK unless a topic's policy says otherwise. */
export const DEFAULT_FSYNC_MODE: FsyncMode = 'always';
/** Under `fsync: 'interval'`, a written record is fsync'd at the latest this long after it (Redis's `everysec`). */
export const DEFAULT_FSYNC_INTERVAL_MS = 1_000;
/**
 * Free space of the data directory's file system below which the disk guard refuses publishes (503). It must hold
 * what is written after the guard's check: up to one check interval of publishes before the check sees the drop,
 * then the commits already in flight (measured: 18 MiB below the threshold at 30 MiB/s of batch publishes, 8
 * clients, docs/storage.md#disk-guard), and what is never refused: checkpoints, dead letters, a flush's writes.
 * 256 MiB is 8 s of that publish rate, so it also covers storage several times faster, and is a small share of
 * any real disk.
 */
export const DEFAULT_DISK_MIN_FREE_BYTES = 256 * 1024 * 1024;
/**
 * How often the disk guard reads the free space (one `statfs`, microseconds). Every second: the refusal starts at
 * most about one second of publishing late (30 MiB measured), well inside the 256 MiB margin.
 */
export const DEFAULT_DISK_CHECK_INTERVAL_MS = 1_000;
/**
 * How often retention checks every topic. Age limits are coarse (the default keeps a week), so once a minute is
 * plenty; a size limit is also checked after every segment rotation, and a topic limit when it refuses a publish.
 */
export const DEFAULT_RETENTION_CHECK_INTERVAL_MS = 60_000;
/** Largest publish request body accepted before answering 413. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of objects and arrays accepted inside one message's `content`. */
export const DEFAULT_MAX_JSON_DEPTH = 64;
/** Most messages one `POST /mmmq/messages/batch` may carry. */
export const DEFAULT_MAX_BATCH_MESSAGES = 1000;
/**
 * Time a client has to send a request's head (line and headers, a few hundred bytes) from its first byte: ample for
 * any real client, and it frees a connection that trickles its headers (slowloris) after 10 s instead of Node's 60.
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/**
 * Time a client has to send a whole request, head and body, from its first byte. 30 s carries a body of the
 * default 1 MiB limit at 35 KB/s; raise it with `http.maxBodyBytes` for slow links.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * How long an idle keep-alive connection stays open after an answer: Node's default, long enough for a client
 * publishing in a loop to reuse its connection, short enough that idle connections do not pile up.
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
/**
 * Open connections one client IP address may hold, per listener (HTTP, publish stream); more are closed at once.
 * Well above what a producer or consumer process opens, far below what exhausts file descriptors.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_IP = 256;

/**
 * Most topics the broker holds (dead-letter and redrive topics, at most two per dispatcher, are not refused). A topic
 * costs little while idle — its descriptors are closed by the descriptor pool, see `limits.maxOpenFiles` — but memory
 * (about 4 KiB, its in-memory index and state) and a directory; 100,000 mostly idle topics fit the default
 * descriptor limit (docs/operations.md#descriptors-and-caps).
 */
export const DEFAULT_MAX_TOPICS = 100_000;
/** Most dispatchers (consumer ids) registered at once; a consumer's hosts and pull members count once. */
export const DEFAULT_MAX_DISPATCHERS = 1_000;
/**
 * Most subscriptions (topic × consumer id) at once: each holds a checkpoint file and delivery state in memory. Checked
 * when a dispatcher is registered or changed, and when a topic is created (its matching dispatchers subscribe to it).
 */
export const DEFAULT_MAX_SUBSCRIPTIONS = 200_000;

/** The furthest ahead a message may be scheduled (`delayMs`, `deliverAt`): 90 days. Further gets 400. */
export const DEFAULT_MAX_DELAY_MS = 90 * 24 * 60 * 60 * 1000;

/** Caps that keep one client from exhausting the broker's memory or descriptors; reaching one answers 429. */
export interface LimitsOptions {
  /** See {@link DEFAULT_MAX_TOPICS}. */
  maxTopics?: number;
  /** See {@link DEFAULT_MAX_DISPATCHERS}. */
  maxDispatchers?: number;
  /** See {@link DEFAULT_MAX_SUBSCRIPTIONS}. */
  maxSubscriptions?: number;
  /** See {@link DEFAULT_MAX_DELAY_MS}. */
  maxDelayMs?: number;
  /**
   * Descriptors the storage layer keeps open at once (topic segment and index files, checkpoints, the journal); idle
   * files beyond it are closed and reopened on demand. Default: the process's `RLIMIT_NOFILE` less a reserve for
   * sockets (a quarter, at least 256, at most 4,096), at most 32,768. Per process: brokers in one process share it.
   */
  maxOpenFiles?: number;
}

export interface SegmentOptions {
  /** Rotate the tail segment once its data file reaches this many bytes. Default {@link DEFAULT_SEGMENT_MAX_BYTES}. */
  maxBytes?: number;
}

export interface FlushOptions {
  /** Longest time between two flushes, in ms. Default {@link DEFAULT_FLUSH_INTERVAL_MS}. */
  intervalMs?: number;
  /** Journal bytes that start a flush early. Default {@link DEFAULT_FLUSH_BYTES}. */
  bytes?: number;
}

export interface DiskGuardOptions {
  /** False turns the guard off; a full disk is then met by failing writes (503 too). Default true. */
  enabled?: boolean;
  /** Publishes are refused while the data directory's file system has less free. Default {@link DEFAULT_DISK_MIN_FREE_BYTES}. */
  minFreeBytes?: number;
  /** How often the free space is read, in ms. Default {@link DEFAULT_DISK_CHECK_INTERVAL_MS}. */
  checkIntervalMs?: number;
}

export interface RetentionCheckOptions {
  /** How often retention checks every topic, in ms. Default {@link DEFAULT_RETENTION_CHECK_INTERVAL_MS}. */
  checkIntervalMs?: number;
}

export interface PersistenceOptions {
  /** Directory holding `dispatchers.json`, `journal/` and `topics/`. Default {@link DEFAULT_ROOT_DIR}. */
  rootDir?: string;
  segment?: SegmentOptions;
  /** When the journal's flush makes the topic files durable. */
  flush?: FlushOptions;
  /**
   * When a publish's journal record is fsync'd, for every topic whose policy (`topics…fsync`) does not say:
   * `always` (before the ACK), `interval` (within `fsyncIntervalMs` after the ACK) or `never` (with the next fsync
   * something else makes). Default {@link DEFAULT_FSYNC_MODE}.
   */
  fsync?: FsyncMode;
  /** Longest time a record written under `fsync: 'interval'` waits for its fsync, in ms. Default {@link DEFAULT_FSYNC_INTERVAL_MS}. */
  fsyncIntervalMs?: number;
  /** Refuses publishes (503 with `Retry-After`) before the disk is full, and resumes once space is freed. */
  diskGuard?: DiskGuardOptions;
  /** When retention (the `topics` option's `retention`) runs. */
  retention?: RetentionCheckOptions;
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
  /**
   * Host names, besides IP addresses, `localhost` and `*.localhost`, that clients may send as `Host` (no port):
   * others get 421, which stops DNS rebinding. `*` accepts any. Default none.
   */
  allowedHosts?: string[];
  /**
   * Origins (`https://console.example.com`) whose web pages may send state-changing requests; a POST, PUT, PATCH or
   * DELETE with any other `Origin`, or with `Sec-Fetch-Site: cross-site`/`same-site`, gets 403. Default none.
   */
  allowedOrigins?: string[];
  /** See {@link DEFAULT_HEADERS_TIMEOUT_MS}; a late client gets 408 and its connection is closed. */
  headersTimeoutMs?: number;
  /** See {@link DEFAULT_REQUEST_TIMEOUT_MS}; at least `headersTimeoutMs`. */
  requestTimeoutMs?: number;
  /** See {@link DEFAULT_KEEP_ALIVE_TIMEOUT_MS}. */
  keepAliveTimeoutMs?: number;
  /** See {@link DEFAULT_MAX_CONNECTIONS_PER_IP}. */
  maxConnectionsPerIp?: number;
}

/** Interface the publish stream binds when `stream.host` is not given; loopback, so nothing is exposed by accident. */
export const DEFAULT_STREAM_HOST = '127.0.0.1';

export interface StreamOptions {
  /** TCP port of the publish stream (docs/stream-protocol.md); 0 picks a free one. */
  port: number;
  /** Interface to bind. Default {@link DEFAULT_STREAM_HOST}. */
  host?: string;
}

export interface TlsOptions {
  /** PEM private key file. */
  keyFile: string;
  /** PEM certificate file (the chain: the server's certificate first). */
  certFile: string;
}

/** Limits after defaults are applied and validation passed. */
export interface ResolvedLimitsOptions {
  maxTopics: number;
  maxDispatchers: number;
  maxSubscriptions: number;
  maxDelayMs: number;
  maxOpenFiles: number;
}

/** Persistence settings after defaults are applied and validation passed. */
export interface ResolvedPersistenceOptions {
  /** Absolute. */
  rootDir: string;
  segmentMaxBytes: number;
  flushIntervalMs: number;
  flushBytes: number;
  /** Default {@link DEFAULT_FSYNC_INTERVAL_MS} where a test builds these options by hand. */
  fsyncIntervalMs?: number;
}

/** Disk guard settings after defaults are applied and validation passed. */
export interface ResolvedDiskGuardOptions {
  enabled: boolean;
  minFreeBytes: number;
  checkIntervalMs: number;
}

/** Retention check settings after defaults are applied and validation passed. */
export interface ResolvedRetentionCheckOptions {
  checkIntervalMs: number;
}

/** HTTP limits after defaults are applied and validation passed. */
export interface ResolvedHttpOptions {
  maxBodyBytes: number;
  maxJsonDepth: number;
  maxBatchMessages: number;
  /** Lower case, without trailing dots. */
  allowedHosts: string[];
  /** As `URL.origin` gives them. */
  allowedOrigins: string[];
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnectionsPerIp: number;
}

/** Publish stream settings after validation; undefined when the stream is off. */
export interface ResolvedStreamOptions {
  port: number;
  host: string;
}

/** TLS files after validation (absolute paths); undefined when TLS is off. */
export interface ResolvedTlsOptions {
  keyFile: string;
  certFile: string;
}

export const MMMQ_PERSISTENCE_OPTIONS = Symbol('MMMQ_PERSISTENCE_OPTIONS');
export const MMMQ_DISK_GUARD_OPTIONS = Symbol('MMMQ_DISK_GUARD_OPTIONS');
export const MMMQ_RETENTION_CHECK_OPTIONS = Symbol('MMMQ_RETENTION_CHECK_OPTIONS');
export const MMMQ_STREAM_OPTIONS = Symbol('MMMQ_STREAM_OPTIONS');
export const MMMQ_HTTP_OPTIONS = Symbol('MMMQ_HTTP_OPTIONS');
export const MMMQ_LIMITS_OPTIONS = Symbol('MMMQ_LIMITS_OPTIONS');
