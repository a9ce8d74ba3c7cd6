export { CheckpointDirectory } from './checkpoint-directory';
export { CheckpointFile } from './checkpoint-file';
export { FileHandle } from './file-handle';
export { OffsetIndexFile } from './offset-index-file';
export { SegmentFile } from './segment-file';
export { SegmentFileChain } from './segment-file-chain';
export * from './storage.errors';
export { TopicQueue } from './topic-queue';
export type { TopicQueueListener } from './topic-queue';
export { TopicQueueBootstrapper } from './topic-queue-bootstrapper';
export { TopicQueueContainer } from './topic-queue-container';
export type { StorageView, TopicOpenedListener } from './topic-queue-container';
export { Journal } from './journal/journal';
export { StorageStats } from './journal/storage-stats';
export { DISK_FREE_SPACE_PROBE, DiskGuard, statfsFreeBytes } from './disk-guard';
export type { FreeSpaceProbe } from './disk-guard';
export * from './verify';

import { DISK_FREE_SPACE_PROBE, DiskGuard, statfsFreeBytes } from './disk-guard';
import { TopicQueueBootstrapper } from './topic-queue-bootstrapper';
import { TopicQueueContainer } from './topic-queue-container';

/** The storage providers; they need `MMMQ_PERSISTENCE_OPTIONS`, `MMMQ_DISK_GUARD_OPTIONS` and `BrokerEvents`. */
export const STORAGE_PROVIDERS = [
  TopicQueueContainer,
  TopicQueueBootstrapper,
  DiskGuard,
  // Provided, not only defaulted, so a test can replace it with `overrideProvider`.
  { provide: DISK_FREE_SPACE_PROBE, useValue: statfsFreeBytes },
];
