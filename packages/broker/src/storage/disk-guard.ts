import { promises as fs } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import {
  MMMQ_DISK_GUARD_OPTIONS,
  MMMQ_PERSISTENCE_OPTIONS,
  ResolvedDiskGuardOptions,
  ResolvedPersistenceOptions,
} from '../config/broker-options';
import { DiskSpaceLowError } from './storage.errors';

/** Bytes the broker may still write on the file system holding `dir`. */
export type FreeSpaceProbe = (dir: string) => Promise<number>;

/** Injection token of a {@link FreeSpaceProbe} replacing `statfs` (tests). */
export const DISK_FREE_SPACE_PROBE = Symbol('DISK_FREE_SPACE_PROBE');

/**
 * `bavail`, not `bfree`: blocks reserved for root are not the broker's unless it runs as root. The data directory
 * may not exist before the first boot creates it; its nearest existing ancestor is on the same file system.
 */
export async function statfsFreeBytes(dir: string): Promise<number> {
  for (let current = dir; ; current = dirname(current)) {
    try {
      const stats = await fs.statfs(current);
      return stats.bavail * stats.bsize;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(current) === current) throw error;
    }
  }
}

/**
 * Refuses publishes (503 with `Retry-After`) while the data directory's file system has less than
 * `persistence.diskGuard.minFreeBytes` free, so a full disk never turns every write into a failure; publishing
 * resumes by itself once a later check sees enough space. The free space is read every `checkIntervalMs` and
 * cached: a publish only compares against the cached answer. Writes other than publishes (checkpoints, dead
 * letters, flushes) go on, in the margin the threshold leaves.
 */
@Injectable()
export class DiskGuard implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(DiskGuard.name);
  private readonly rootDir: string;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;
  private closed = false;
  /** Set while publishes are refused: the free bytes the last check read. */
  private lowFreeBytes?: number;
  private lastFreeBytes?: number;
  private probeFailing = false;

  constructor(
    @Inject(MMMQ_PERSISTENCE_OPTIONS) persistence: ResolvedPersistenceOptions,
    @Inject(MMMQ_DISK_GUARD_OPTIONS) private readonly options: ResolvedDiskGuardOptions,
    @Optional() @Inject(DISK_FREE_SPACE_PROBE) private readonly probe: FreeSpaceProbe = statfsFreeBytes,
  ) {
    this.rootDir = resolve(persistence.rootDir);
  }

  /** Reads the free space once before the broker takes publishes, then every `checkIntervalMs`. */
  async onModuleInit(): Promise<void> {
    if (!this.options.enabled || this.closed || this.timer) return;
    await this.check();
    // A shutdown during the first check: no timer after close().
    if (this.closed) return;
    // Unref'd: the guard never keeps a process alive on its own.
    this.timer = setInterval(() => void this.check(), this.options.checkIntervalMs).unref();
  }

  /** True while publishes are refused. */
  get refusing(): boolean {
    return this.lowFreeBytes !== undefined;
  }

  /** The free bytes the last successful check read; undefined before one, or while the guard is off. */
  get freeBytes(): number | undefined {
    return this.lastFreeBytes;
  }

  /** @throws DiskSpaceLowError while the last check saw less than `minFreeBytes` free */
  assertMayPublish(): void {
    if (this.lowFreeBytes === undefined) return;
    throw new DiskSpaceLowError(this.lowFreeBytes, this.options.minFreeBytes, this.options.checkIntervalMs);
  }

  /** Reads the free space now and refuses or resumes accordingly; concurrent calls share one read. */
  check(): Promise<void> {
    this.checking ??= this.read().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async read(): Promise<void> {
    let free: number;
    try {
      free = await this.probe(this.rootDir);
    } catch (error) {
      // Fail open: the write path still answers 503 if the disk really fills; say it once, not every second.
      if (!this.probeFailing) {
        this.logger.warn(
          `The disk guard cannot read the free space of ${this.rootDir}, keeping its last answer: ${(error as Error).message}`,
        );
      }
      this.probeFailing = true;
      return;
    }
    this.probeFailing = false;
    if (this.closed) return;
    this.lastFreeBytes = free;
    const low = free < this.options.minFreeBytes;
    if (low && this.lowFreeBytes === undefined) {
      this.logger.warn(
        `Refusing publishes (503): ${this.rootDir} has ${free} bytes free, below persistence.diskGuard.minFreeBytes ` +
          `(${this.options.minFreeBytes}); publishing resumes once space is freed`,
      );
    } else if (!low && this.lowFreeBytes !== undefined) {
      this.logger.log(
        `Publishing resumed: ${this.rootDir} has ${free} bytes free (persistence.diskGuard.minFreeBytes ${this.options.minFreeBytes})`,
      );
    }
    this.lowFreeBytes = low ? free : undefined;
  }

  /** Stops the checks. Idempotent. */
  onApplicationShutdown(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
