import { promises as fs } from 'node:fs';
import { basename, join } from 'node:path';
import { assertConsumerId } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { CheckpointFile } from './checkpoint-file';
import { descriptorPool } from './descriptor-pool';
import { syncDirectory } from './file-handle';
import type { Journal } from './journal/journal';
import type { Flushable } from './journal/journal-commit';
import { JournalOpKind } from './journal/journal-record';
import type { SubscriptionSnapshot } from './subscription-snapshot';

export const CHECKPOINTS_DIR = 'checkpoints';
export const CHECKPOINT_EXTENSION = '.checkpoint';

/**
 * The `checkpoints/` folder of one topic: one file per consumer reading that topic. A new checkpoint costs no fsync:
 * its first value is journaled (sharing a commit group's fsync), and its file and directory entry are made durable
 * by the next flush; until then the journal's replay recreates them.
 */
export class CheckpointDirectory {
  private readonly logger = new Logger(CheckpointDirectory.name);
  private readonly files = new Map<string, Promise<CheckpointFile>>();
  /** A file was created or removed here since the directory was last fsync'd. */
  private entriesDirty = false;
  /** Checkpoint files being removed: the directory's fsync waits for their unlinks. */
  private readonly removals = new Set<Promise<void>>();
  /** The directory entries as the journal's flush makes them durable. */
  private readonly entries: Flushable = { sync: () => this.syncEntries() };
  /** What makes this folder's own entry durable, flushed with the first checkpoint created here (see `flushFolderWith`). */
  private folderFlush?: Flushable;

  private constructor(
    readonly path: string,
    private readonly topicName: string,
    private readonly journal: Journal,
    /** This folder was created by `open`: its entry in the topic's directory is not durable yet (the topic's flush). */
    readonly createdFolder = false,
  ) {}

  static async open(topicDir: string, journal: Journal): Promise<CheckpointDirectory> {
    const path = join(topicDir, CHECKPOINTS_DIR);
    const created = (await fs.mkdir(path, { recursive: true })) !== undefined;
    return new CheckpointDirectory(path, basename(topicDir), journal, created);
  }

  /**
   * This folder's entry in the topic's directory is not durable yet: `target` (the topic, whose flush fsyncs its
   * directory) is flushed with the first checkpoint created here. A topic nobody reads costs no fsync.
   */
  flushFolderWith(target: Flushable): void {
    this.folderFlush = target;
  }

  /** Consumer ids that have a checkpoint file here. */
  async consumerIds(): Promise<string[]> {
    const names = await descriptorPool.withDescriptor(() => fs.readdir(this.path));
    return names.filter((name) => name.endsWith(CHECKPOINT_EXTENSION)).map((name) => name.slice(0, -CHECKPOINT_EXTENSION.length));
  }

  /**
   * The consumer's checkpoint, created at `initial` if it has none yet: resolves once `initial` is durable (journaled).
   * One that is damaged, or past `logEnd` (the topic's tail), restarts at 0 with a warning (see
   * {@link CheckpointFile.open}).
   */
  open(consumerId: string, initial: number, logEnd: number): Promise<CheckpointFile> {
    return this.openOrCreate(consumerId, initial, logEnd, true);
  }

  private openOrCreate(consumerId: string, initial: number, logEnd: number, journaled: boolean): Promise<CheckpointFile> {
    const id = assertConsumerId(consumerId);
    let file = this.files.get(id);
    if (!file) {
      file = this.create(id, initial, logEnd, journaled);
      this.files.set(id, file);
      file.catch(() => this.files.delete(id));
    }
    return file;
  }

  /** `journaled`: a new checkpoint's first value goes through the journal (not for the journal's own replay). */
  private async create(consumerId: string, initial: number, logEnd: number, journaled: boolean): Promise<CheckpointFile> {
    const owner = { journal: this.journal, topic: this.topicName, consumerId };
    const { checkpoint, reset, created } = await CheckpointFile.open(this.fileOf(consumerId), initial, logEnd, owner);
    if (reset) {
      this.logger.warn(
        `Topic ${this.topicName}: the checkpoint of consumer ${consumerId} was damaged (${reset}); it restarts at ` +
          `offset 0, the start of the log (redelivering rather than skipping)`,
      );
    }
    if (created) {
      // Before the journal record: a flush covering that record then makes the file's directory entry durable too.
      this.entriesDirty = true;
      this.journal.markDirty(this.entries);
      if (this.folderFlush) this.journal.markDirty(this.folderFlush);
      this.folderFlush = undefined;
      // The first value is durable with the record: a crash before the next flush recreates the file from it (a
      // subscription starting at the tail must not start at a later tail after a restart, skipping what came between).
      if (journaled)
        await checkpoint.write(checkpoint.snapshot).catch((error: unknown) => checkpoint.discard().then(() => Promise.reject(error)));
    }
    return checkpoint;
  }

  /**
   * Removes the consumer's checkpoint (its subscription to this topic ended), journaled first. The removal is made
   * durable by the next flush, which covers the journal record only once the file's directory entry is fsync'd.
   */
  async delete(consumerId: string): Promise<void> {
    const id = assertConsumerId(consumerId);
    let removed: Promise<void> = Promise.resolve();
    const op = { kind: JournalOpKind.CHECKPOINT_DELETE as const, topic: this.topicName, consumerId: id };
    // Started as the record is applied: a flush that covers the record also waits for the unlink, then fsyncs it.
    await this.journal.commit([{ op, apply: () => ((removed = this.remove(id)), this.entries) }]);
    await removed;
  }

  /** Sets the consumer's checkpoint without journaling it (the journal's replay); durable at `sync`. */
  async restore(consumerId: string, state: number | SubscriptionSnapshot, logEnd: number): Promise<void> {
    const cursor = typeof state === 'number' ? state : state.cursor;
    (await this.openOrCreate(consumerId, cursor, logEnd, false)).restore(state);
  }

  /** The lowest cursor among the open checkpoints (as journaled) and the consumers at it; `Infinity` with none. */
  async lowestCursor(): Promise<{ offset: number; consumerIds: string[] }> {
    let offset = Infinity;
    let consumerIds: string[] = [];
    for (const [consumerId, file] of [...this.files]) {
      const cursor = await file.then(
        (checkpoint) => checkpoint.offset,
        () => Infinity,
      );
      if (cursor < offset) [offset, consumerIds] = [cursor, [consumerId]];
      else if (cursor === offset && cursor !== Infinity) consumerIds.push(consumerId);
    }
    return { offset, consumerIds };
  }

  /** Writes every moved checkpoint of this topic and fsyncs it, then the directory; returns the fsyncs it took. */
  async sync(): Promise<number> {
    let fsyncs = 0;
    for (const file of this.files.values()) fsyncs += await (await file).sync();
    return fsyncs + (await this.syncEntries());
  }

  /** Makes the files created and removed here durable as directory entries; returns the fsyncs it took. */
  private async syncEntries(): Promise<number> {
    if (!this.entriesDirty) return 0;
    await Promise.allSettled(this.removals);
    this.entriesDirty = false;
    try {
      await syncDirectory(this.path);
    } catch (error) {
      this.entriesDirty = true;
      throw error;
    }
    return 1;
  }

  /** Removes the consumer's checkpoint file without journaling it (the journal's replay); durable at `sync`. */
  forget(consumerId: string): Promise<void> {
    return this.remove(assertConsumerId(consumerId));
  }

  private remove(consumerId: string): Promise<void> {
    const file = this.files.get(consumerId);
    this.files.delete(consumerId);
    const removal = (async () => {
      if (file) await (await file).close();
      await fs.rm(this.fileOf(consumerId), { force: true });
    })();
    this.removals.add(removal);
    void removal.catch(() => undefined).finally(() => this.removals.delete(removal));
    this.entriesDirty = true;
    this.journal.markDirty(this.entries);
    return removal;
  }

  async close(): Promise<void> {
    const files = [...this.files.values()];
    this.files.clear();
    await Promise.allSettled(files.map(async (file) => (await file).close()));
  }

  private fileOf(consumerId: string): string {
    return join(this.path, consumerId + CHECKPOINT_EXTENSION);
  }
}
