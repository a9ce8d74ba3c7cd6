export { CheckpointDirectory } from './checkpoint-directory';
export { CheckpointFile } from './checkpoint-file';
export { FileHandle } from './file-handle';
export { OffsetIndexFile } from './offset-index-file';
export { SegmentFile } from './segment-file';
export { SegmentFileChain } from './segment-file-chain';
export * from './storage.errors';
export { TopicQueue } from './topic-queue';
export { TopicQueueBootstrapper } from './topic-queue-bootstrapper';
export { TopicQueueContainer } from './topic-queue-container';
export type { StorageView } from './topic-queue-container';
export { TopicOpenedEvent } from './topic-opened.event';
export { RecordsCommittedEvent } from './journal/records-committed.event';
export { CheckpointDirectoryFactory, SegmentFileChainFactory, TopicQueueFactory } from './topic-queue.factory';
export { Journal } from './journal/journal';
export { StorageStats } from './journal/storage-stats';
export { DISK_FREE_SPACE_PROBE, DiskGuard, statfsFreeBytes } from './disk-guard';
export type { FreeSpaceProbe } from './disk-guard';
export * from './verify';

import { DISK_FREE_SPACE_PROBE, DiskGuard, statfsFreeBytes } from './disk-guard';
import { TopicQueueBootstrapper } from './topic-queue-bootstrapper';
import { TopicQueueContainer } from './topic-queue-container';
import { JOURNAL_PROVIDER } from './journal/journal.provider';
import { RecentEntriesBudget } from './recent-entries-budget';
import { MMMQ_MEMORY_OPTIONS, type ResolvedMemoryOptions } from '../config/memory-options';
import { CheckpointDirectoryFactory, SegmentFileChainFactory, TopicQueueFactory } from './topic-queue.factory';

/**
 * The storage providers; they need `MMMQ_PERSISTENCE_OPTIONS`, `MMMQ_DISK_GUARD_OPTIONS`, `BrokerEvents` and
 * `BrokerBus`. Every topic's queue, segment chain and checkpoint folder comes from the factories here.
 */
export const STORAGE_PROVIDERS = [
  JOURNAL_PROVIDER,
  {
    provide: RecentEntriesBudget,
    useFactory: (memory?: ResolvedMemoryOptions) => new RecentEntriesBudget(memory?.recentEntriesBytes, memory?.topicRecentEntriesBytes),
    inject: [{ token: MMMQ_MEMORY_OPTIONS, optional: true }],
  },
  SegmentFileChainFactory,
  CheckpointDirectoryFactory,
  TopicQueueFactory,
  TopicQueueContainer,
  TopicQueueBootstrapper,
  DiskGuard,
  // Provided, not only defaulted, so a test can replace it with `overrideProvider`.
  { provide: DISK_FREE_SPACE_PROBE, useValue: statfsFreeBytes },
];
