import path from 'node:path';
import { FdatasyncFile } from '../fdatasync-loop';
import { encode, type BenchContent } from '../payload';
import { commandOutput, tempDir } from '../services';
import { ReferenceSystem } from './reference-system';
import type { System, TopicPlan } from './system';

/** Preallocated ahead of the writes, in steps: 10,000 messages of 1 KiB fit in one. */
const PREALLOCATE_BYTES = 16 * 2 ** 20;

/**
 * The bare fdatasync loop as a row of the one-at-a-time publish workload: each "publish" writes the message's bytes at
 * the next offset of a preallocated file in the bench's temp dir (the disk MMMQ's and Redis's data dirs are on) and
 * `fdatasync`s it, synchronously, nothing else. The disk's limit for one durable write at a time, beside the systems.
 */
export class BareFdatasyncSystem extends ReferenceSystem implements System {
  readonly id = 'fdatasync-loop';
  readonly label = 'Bare fdatasync loop (the disk, no broker)';
  readonly description =
    "Not a broker: for the one-at-a-time publish workload only, each message's bytes written at the next offset of a file preallocated (written and fdatasync'd beforehand, as MMMQ's journal preallocates its files) in the bench's temp dir, then `fdatasync`, synchronously in the bench process, one after the other: the disk's limit for one durable write at a time. No server, so no broker CPU; its client CPU is the loop's";
  private file?: FdatasyncFile;

  constructor() {
    super({ ids: ['publish-one'], why: 'a reference for the one-at-a-time publish workload only: there is no broker to measure' });
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {
    this.file?.close();
    this.file = undefined;
  }

  brokerPids(): number[] {
    return [];
  }

  async version(): Promise<string> {
    return `Linux ${await commandOutput('uname', ['-r'])}, fdatasync(2) from Node ${process.version}`;
  }

  override async declare(plan: TopicPlan): Promise<void> {
    this.file?.close();
    this.file = new FdatasyncFile(path.join(tempDir('fdatasync-loop'), `${plan.prefix}.bin`), 'preallocated', PREALLOCATE_BYTES);
  }

  override async publish(_topic: string, content: BenchContent): Promise<void> {
    if (!this.file) throw new Error('publish before declare');
    this.file.write(encode(content));
  }

  override async drop(): Promise<void> {
    this.file?.close();
    this.file = undefined;
  }
}
