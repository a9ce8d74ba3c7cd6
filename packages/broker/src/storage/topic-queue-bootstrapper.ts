import { promises as fs } from 'node:fs';
import { Topic } from '@mmmq/core';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { TopicQueueContainer } from './topic-queue-container';

/**
 * Restores every topic under `{rootDir}/topics` at boot. A topic that cannot be recovered is logged and left
 * closed; it never stops the others from loading.
 */
@Injectable()
export class TopicQueueBootstrapper implements OnApplicationBootstrap {
  private readonly logger = new Logger(TopicQueueBootstrapper.name);
  private restoring?: Promise<void>;
  private done = false;

  constructor(private readonly container: TopicQueueContainer) {}

  onApplicationBootstrap(): Promise<void> {
    return this.whenRestored();
  }

  /** True once every topic on disk is restored (or failed to): the broker's readiness waits for it. */
  get restored(): boolean {
    return this.done;
  }

  /** Resolves once every topic on disk is restored (or failed to); whoever asks first starts it. */
  whenRestored(): Promise<void> {
    this.restoring ??= this.restore();
    return this.restoring;
  }

  private async restore(): Promise<void> {
    const entries = await fs.readdir(this.container.topicsDir, { withFileTypes: true }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    });
    let restored = 0;
    let failed = 0;
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      if (!Topic.isValid(entry.name)) {
        this.logger.warn(`Skipping ${entry.name} in ${this.container.topicsDir}: not a valid topic name`);
        continue;
      }
      try {
        await this.container.getOrCreate(Topic.of(entry.name));
        restored++;
      } catch (error) {
        failed++;
        this.logger.error(`Topic ${entry.name} could not be restored and stays closed`, (error as Error).stack);
      }
    }
    this.done = true;
    this.logger.log(`Restored ${restored} topics from ${this.container.topicsDir}` + (failed ? `, ${failed} failed` : ''));
  }
}
