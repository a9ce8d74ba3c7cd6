import { readFileSync } from 'node:fs';

/** Used when `/proc/self/limits` cannot be read (not Linux): the most common soft limit of open files. */
export const FALLBACK_NOFILE_LIMIT = 1024;
/** Descriptors left outside the storage budget: sockets (HTTP clients, pushes, the stream), Node's own, logs. */
export const MIN_DESCRIPTOR_RESERVE = 256;
/** A quarter of the limit is reserved, at least {@link MIN_DESCRIPTOR_RESERVE}, at most this. */
export const MAX_DESCRIPTOR_RESERVE = 4096;
/**
 * The default budget never goes above this, whatever the limit: an open file costs kernel memory (about 1 KiB), and
 * reopening a cold file (open + fstat, some µs) is cheap next to holding hundreds of thousands of idle ones open.
 */
export const MAX_DEFAULT_OPEN_FILES = 32_768;
/** The smallest budget accepted: a topic needs 2 files to be written, the journal 1, a flush 1 more. */
export const MIN_OPEN_FILES = 8;
/** How many of the least recently used files an eviction looks through for a clean one before it syncs a dirty one. */
const CLEAN_VICTIM_SCAN = 32;
/**
 * A file not used for between one and two of these is closed even while the budget has room, once it is clean (the
 * flush fsyncs it first): a topic nobody writes or reads holds no descriptor. Longer than the default flush
 * interval (10 s), so the files of a topic written in every interval stay open between its flushes.
 */
export const IDLE_FILE_CLOSE_MS = 30_000;

/** The soft and hard `RLIMIT_NOFILE` of this process, from `/proc/self/limits`; undefined where unreadable. */
export function readNofileLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): { soft: number; hard: number } | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!match) return undefined;
  const value = (field: string) => (field === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(field));
  const soft = value(match[1]);
  const hard = value(match[2]);
  return Number.isSafeInteger(soft) && soft > 0 ? { soft, hard } : undefined;
}

/** Descriptors kept out of the storage budget for a process allowed `limit` open files. */
export function descriptorReserve(limit: number): number {
  return Math.min(MAX_DESCRIPTOR_RESERVE, Math.max(MIN_DESCRIPTOR_RESERVE, Math.floor(limit / 4)));
}

/**
 * The default budget of open storage files for a process allowed `limit` (the soft `RLIMIT_NOFILE`): the limit less
 * the {@link descriptorReserve}, at most {@link MAX_DEFAULT_OPEN_FILES}, at least {@link MIN_OPEN_FILES}.
 */
export function defaultMaxOpenFiles(limit: number = readNofileLimit()?.soft ?? FALLBACK_NOFILE_LIMIT): number {
  return Math.max(MIN_OPEN_FILES, Math.min(MAX_DEFAULT_OPEN_FILES, limit - descriptorReserve(limit)));
}

/**
 * A file the pool may close while it is idle: {@link DescriptorPool} keeps its members in least-recently-used order
 * through these links (no allocation per use), and asks one to close when a descriptor is needed elsewhere.
 */
export interface PooledFile {
  /** Links of the LRU list; owned by the pool. */
  lruOlder?: PooledFile;
  lruNewer?: PooledFile;
  inLru: boolean;
  /** Operations in flight on the descriptor (an fsync, a read, a large write): never closed while above 0. */
  readonly pins: number;
  /** True while the pool is closing it. */
  readonly evicting: boolean;
  /** The pool's idle sweep that last saw it used; owned by the pool. */
  usedInSweep: number;
  /** Written since the last successful sync: closing it needs an fsync first (see {@link evict}). */
  readonly dirty: boolean;
  /**
   * Closes the descriptor. A clean file closes at once (resolves `true` synchronously, so `undefined` is never
   * returned for it); a dirty one fsyncs first and resolves whether it closed (it stays open if it was used meanwhile).
   */
  evict(): boolean | Promise<boolean>;
}

/** What `GET /mmmq/storage` and the tests see of the pool. */
export interface DescriptorPoolView {
  /** The budget: at most this many storage descriptors are open at once. */
  max: number;
  /** Open now (files and transient ones: a directory being fsync'd). */
  open: number;
  /** The most open at once since the budget was last set. */
  peak: number;
  /** Files closed to make room, and files reopened on demand, since start. */
  evictions: number;
  reopens: number;
  /** Descriptor requests that had to wait for one to close. */
  waits: number;
  /** Clean files closed because nothing used them for a while (see IDLE_FILE_CLOSE_MS), since start. */
  idleCloses: number;
}

/**
 * The storage layer's descriptors as a budgeted resource: every file the broker opens for a topic, a checkpoint, the
 * journal, or a moment (a directory fsync) takes one of `max` slots; when none is free the least recently used idle
 * file is closed (an fsync first if it holds unsynced writes, so no write error can be lost with its descriptor) and
 * reopened on demand later. A file with an operation in flight is never closed. One pool per process: the limit it
 * shares is the process's `RLIMIT_NOFILE`.
 */
export class DescriptorPool {
  private maxOpen: number;
  private openNow = 0;
  private peakOpen = 0;
  private oldest?: PooledFile;
  private newest?: PooledFile;
  private readonly waiting: Array<() => void> = [];
  private evictionsDone = 0;
  private waitsDone = 0;
  private idleClosesDone = 0;
  /** Counted by the files themselves as they reopen. */
  reopens = 0;
  /** Idle sweeps so far: a file used since the one before last is not idle. */
  private sweeps = 0;
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    max: number = defaultMaxOpenFiles(),
    private readonly idleCloseMs = IDLE_FILE_CLOSE_MS,
  ) {
    this.maxOpen = max;
  }

  get max(): number {
    return this.maxOpen;
  }

  /** Changes the budget (the broker's `limits.maxOpenFiles`); files over it close as they go idle. */
  setMax(max: number): void {
    this.maxOpen = Math.max(1, max);
    this.peakOpen = this.openNow;
    this.trim();
  }

  view(): DescriptorPoolView {
    return {
      max: this.maxOpen,
      open: this.openNow,
      peak: this.peakOpen,
      evictions: this.evictionsDone,
      reopens: this.reopens,
      waits: this.waitsDone,
      idleCloses: this.idleClosesDone,
    };
  }

  /**
   * Closes every clean file with no operation in flight that was not used since the sweep before the last one, and
   * starts the next sweep: run every `idleCloseMs` while files are open, so a file idle that long closes within two.
   * Returns how many it closed. A dirty idle file is left to the flush, and closed by a later sweep.
   */
  closeIdle(): number {
    this.sweeps++;
    let closed = 0;
    for (let file = this.oldest; file;) {
      const newer = file.lruNewer;
      // Least recently used first: from the first file used in the last two sweeps on, every file is.
      if (file.usedInSweep >= this.sweeps - 1) break;
      if (file.pins === 0 && !file.evicting && !file.dirty) {
        void file.evict();
        closed++;
      }
      file = newer;
    }
    this.idleClosesDone += closed;
    if (this.openNow === 0 && this.sweepTimer) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
    }
    return closed;
  }

  /** Takes a slot for a descriptor about to be opened: at once when one is free, else once a file is closed. */
  reserve(): Promise<void> | undefined {
    if (this.openNow < this.maxOpen || this.makeRoom()) {
      this.take();
      return undefined;
    }
    this.waitsDone++;
    return this.waitForSlot();
  }

  private async waitForSlot(): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      if (this.openNow < this.maxOpen || this.makeRoom()) {
        this.take();
        return;
      }
    }
  }

  private take(): void {
    this.openNow++;
    if (this.openNow > this.peakOpen) this.peakOpen = this.openNow;
  }

  /** Gives a slot back (its descriptor was closed, or its open failed). */
  release(): void {
    this.openNow--;
    this.wakeOne();
  }

  private wakeOne(): void {
    this.waiting.shift()?.();
  }

  /**
   * A file became closable (an operation on it ended, or it was just opened and is idle): a request waiting for a
   * slot may now close it.
   */
  unpinned(): void {
    if (this.waiting.length > 0) this.wakeOne();
  }

  /** Runs `work` holding one slot: for a descriptor opened and closed within it (a directory fsync). */
  async withDescriptor<T>(work: () => Promise<T>): Promise<T> {
    await this.reserve();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Makes `file` the most recently used (adding it if absent). O(1), no allocation: on every use of a file. */
  touch(file: PooledFile): void {
    file.usedInSweep = this.sweeps;
    if (this.newest === file) return;
    // Swept only while some file is open; unref'd, so it never keeps the process alive.
    this.sweepTimer ??= setInterval(() => this.closeIdle(), this.idleCloseMs).unref();
    if (file.inLru) this.unlink(file);
    file.inLru = true;
    file.lruOlder = this.newest;
    file.lruNewer = undefined;
    if (this.newest) this.newest.lruNewer = file;
    else this.oldest = file;
    this.newest = file;
  }

  /** Takes a file out of the LRU (it closed). */
  forget(file: PooledFile): void {
    if (file.inLru) this.unlink(file);
  }

  private unlink(file: PooledFile): void {
    const { lruOlder, lruNewer } = file;
    if (lruOlder) lruOlder.lruNewer = lruNewer;
    else this.oldest = lruNewer;
    if (lruNewer) lruNewer.lruOlder = lruOlder;
    else this.newest = lruOlder;
    file.lruOlder = file.lruNewer = undefined;
    file.inLru = false;
  }

  /**
   * Closes an idle file to free a slot. Returns true when a clean one closed (the slot is free now); otherwise it may
   * have started closing a dirty one (its fsync first), whose release wakes a waiter.
   */
  private makeRoom(): boolean {
    let dirtyVictim: PooledFile | undefined;
    let scanned = 0;
    for (let file = this.oldest; file && scanned < CLEAN_VICTIM_SCAN; file = file.lruNewer) {
      if (file.pins > 0 || file.evicting) continue;
      scanned++;
      if (!file.dirty) {
        this.evictionsDone++;
        void file.evict();
        return true;
      }
      dirtyVictim ??= file;
    }
    if (dirtyVictim && !this.evictingDirty) {
      this.evictionsDone++;
      this.evictingDirty = true;
      void Promise.resolve(dirtyVictim.evict()).then(
        () => this.afterDirtyEviction(),
        () => this.afterDirtyEviction(),
      );
    }
    return false;
  }

  /** One dirty eviction at a time: each costs an fsync, and one is enough to free the slot a waiter needs. */
  private evictingDirty = false;

  private afterDirtyEviction(): void {
    this.evictingDirty = false;
    // Closed: its release woke a waiter. Kept open (used meanwhile): a waiter must look again.
    this.wakeOne();
  }

  /** Closes idle files while more than the budget are open (after the budget was lowered). */
  private trim(): void {
    while (this.openNow > this.maxOpen && this.makeRoom()) {
      // each round closed one clean file
    }
  }
}

/** The process's pool: storage files of every broker in this process share the process's descriptor limit. */
export const descriptorPool = new DescriptorPool();
