/** One topic's share of a commit that became durable (or, nonPersistent, was written). */
export interface PublishedPart {
  topic: string;
  messages: number;
  /** Encoded bytes of the messages, as stored. */
  bytes: number;
}

/**
 * Told about every commit the {@link PublishIntake} stored, with the seconds from its arrival to its commit. Only
 * provided while metrics are on (`metrics.enabled`); the dispatcher then calls it once per commit, nothing more.
 */
export interface PublishObserver {
  committed(parts: readonly PublishedPart[], seconds: number): void;
}

/** Injection token of the optional {@link PublishObserver}. */
export const PUBLISH_OBSERVER = Symbol('PUBLISH_OBSERVER');
