/** The oldest offset of a topic that its subscriptions still need, and who needs it. */
export interface NeededFrom {
  offset: number;
  consumerIds: string[];
}

/**
 * What retention asks the delivery layer before deleting under `whenNeeded: keep`: the offset below which no
 * subscription needs the topic any more. The subscription container provides it (bound in the broker module), so
 * retention does not import delivery.
 */
export interface RetentionHolders {
  /** `Infinity` when no subscription holds the topic; 0 while that cannot be known yet. */
  neededFrom(topic: string): Promise<NeededFrom>;
}

export const RETENTION_HOLDERS = Symbol('RETENTION_HOLDERS');
