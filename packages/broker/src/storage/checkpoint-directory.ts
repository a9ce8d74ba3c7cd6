import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { assertConsumerId } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { CheckpointFile } from './checkpoint-file';
import { syncDirectory } from './file-handle';

export const CHECKPOINTS_DIR = 'checkpoints';
const CHECKPOINT_EXTENSION = '.checkpoint';

/** The `checkpoints/` folder of one topic: one file per consumer reading that topic. */
export class CheckpointDirectory {
  private readonly logger = new Logger(CheckpointDirectory.name);
  private readonly files = new Map<string, Promise<CheckpointFile>>();

  private constructor(readonly path: string) {}

  static async open(topicDir: string): Promise<CheckpointDirectory> {
    const path = join(topicDir, CHECKPOINTS_DIR);
    await fs.mkdir(path, { recursive: true });
    return new CheckpointDirectory(path);
  }

  /** Consumer ids that have a checkpoint file here. */
  async consumerIds(): Promise<string[]> {
    const names = await fs.readdir(this.path);
    return names
      .filter((name) => name.endsWith(CHECKPOINT_EXTENSION))
      .map((name) => name.slice(0, -CHECKPOINT_EXTENSION.length));
  }

  /** The consumer's checkpoint, created at `initial` if it has none yet. */
  open(consumerId: string, initial: number): Promise<CheckpointFile> {
    const id = assertConsumerId(consumerId);
    let file = this.files.get(id);
    if (!file) {
      file = this.create(id, initial);
      this.files.set(id, file);
      file.catch(() => this.files.delete(id));
    }
    return file;
  }

  private async create(consumerId: string, initial: number): Promise<CheckpointFile> {
    const { checkpoint, reset } = await CheckpointFile.open(this.fileOf(consumerId), initial);
    if (reset) {
      this.logger.warn(`Checkpoint of ${consumerId} in ${this.path} was damaged; it restarts at offset 0 (redelivery)`);
    }
    await syncDirectory(this.path);
    return checkpoint;
  }

  /** Removes the consumer's checkpoint (its subscription to this topic ended). */
  async delete(consumerId: string): Promise<void> {
    const id = assertConsumerId(consumerId);
    const file = this.files.get(id);
    this.files.delete(id);
    if (file) await (await file).close();
    await fs.rm(this.fileOf(id), { force: true });
    await syncDirectory(this.path);
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
