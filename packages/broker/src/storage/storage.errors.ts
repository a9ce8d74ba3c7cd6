import { MmmqError } from '@mmmq/core';

/** An I/O operation of the log failed; the request that caused it is NACKed and may be retried. */
export class StorageError extends MmmqError {}

/** A stored entry cannot be trusted (bad frame or checksum); delivery skips it instead of stalling. */
export class CorruptionError extends StorageError {
  constructor(
    message: string,
    readonly offset?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class ChecksumMismatchError extends CorruptionError {}

/** How long a client should wait before retrying a publish refused by storage, unless the error says otherwise. */
export const DEFAULT_STORAGE_RETRY_AFTER_MS = 1000;

/** The topic refuses writes until it is recovered (after a write/fsync failure, or a failed open). */
export class StorageUnavailableError extends StorageError {
  /** When a retry may succeed; HTTP turns it into `Retry-After`. */
  readonly retryAfterMs: number;

  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs ?? DEFAULT_STORAGE_RETRY_AFTER_MS;
  }
}

/**
 * The disk guard refuses publishes: the data directory's file system has less free space than
 * `persistence.diskGuard.minFreeBytes`. Nothing of the refused publish is stored; retrying after `retryAfterMs`
 * succeeds once space is freed.
 */
export class DiskSpaceLowError extends StorageUnavailableError {
  constructor(
    readonly freeBytes: number,
    readonly minFreeBytes: number,
    retryAfterMs: number,
  ) {
    super(
      `The broker's disk has ${mebibytes(freeBytes)} free, below the disk guard's ${mebibytes(minFreeBytes)} ` +
        '(persistence.diskGuard.minFreeBytes); publishing resumes when space is freed',
      { retryAfterMs },
    );
  }
}

function mebibytes(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return `${mib >= 10 || Number.isInteger(mib) ? Math.floor(mib) : mib.toFixed(1)} MiB`;
}

/** Two topic names may not differ only in letter case: on a case-insensitive file system they would share files. */
export class TopicNameConflictError extends MmmqError {}

/**
 * A storage operation failed before anything reached the disk, for a reason that goes away by itself (descriptors or
 * space ran out: EMFILE, ENFILE, ENOSPC from an open or a write): retrying it is safe, unlike retrying a failed fsync.
 */
export class RetryableStorageError extends StorageError {}

/** True when `error` (or one of its causes) is a {@link RetryableStorageError}. */
export function isRetryableStorageError(error: unknown): boolean {
  for (let at = error; at instanceof Error; at = at.cause) {
    if (at instanceof RetryableStorageError) return true;
    if (at instanceof AggregateError && at.errors.some(isRetryableStorageError)) return true;
  }
  return false;
}
