/**
 * What the broker holds of messages in memory, in bytes (docs/delivery.md#memory, docs/storage.md#recent-entries):
 * each bound applies per subscription or topic and broker-wide. Reaching one never drops a message: reading ahead
 * pauses (a subscription holding nothing still reads one), and a topic's recent entries are read from disk instead.
 */
export interface MemoryOptions {
  /** Message bytes all subscriptions together hold (read ahead, leased, delayed). Default `DEFAULT_WINDOW_BYTES` (128 MiB). */
  windowBytes?: number;
  /** Message bytes one subscription holds. Default `DEFAULT_SUBSCRIPTION_WINDOW_BYTES` (16 MiB). */
  subscriptionWindowBytes?: number;
  /** Bytes of recent payloads all topics together keep. Default `DEFAULT_RECENT_ENTRIES_TOTAL_BYTES` (64 MiB). */
  recentEntriesBytes?: number;
  /** Bytes of recent payloads one topic keeps. Default `DEFAULT_RECENT_ENTRIES_BYTES` (8 MiB). */
  topicRecentEntriesBytes?: number;
}

/** Memory bounds after defaults are applied and validation passed. */
export interface ResolvedMemoryOptions {
  windowBytes: number;
  subscriptionWindowBytes: number;
  recentEntriesBytes: number;
  topicRecentEntriesBytes: number;
}

export const MMMQ_MEMORY_OPTIONS = Symbol('MMMQ_MEMORY_OPTIONS');
