import { performance } from 'node:perf_hooks';

/** After a 413, a push host is sent a larger push (a probe) again no sooner than this after that 413. */
export const PUSH_SIZE_PROBE_INTERVAL_MS = 30_000;
/** Once its limit is found, a push host is probed again at the smallest size it refused after this long. */
export const PUSH_SIZE_MEMORY_MS = 10 * 60_000;

export interface PushSizeTimings {
  probeIntervalMs: number;
  memoryMs: number;
}

/**
 * How many messages one push to a host may carry, learned from its `413` answers (it refuses the push as too
 * large). A refused push of several messages halves the size; the size that works is kept, so a consumer that
 * takes at most 10 messages does not cost a 413 round trip per window. Larger pushes are tried again (probes)
 * at most once per {@link PUSH_SIZE_PROBE_INTERVAL_MS} after a 413: halfway between the largest size accepted and
 * the smallest refused, until they are next to each other; then the refused size once per
 * {@link PUSH_SIZE_MEMORY_MS} (a consumer's limit may have been raised), and doubling while probes succeed.
 * A single message refused is too large by itself, so the refusals that isolated it are forgotten (back to
 * `batchSize`). It counts messages, not bytes: a consumer limits bytes, so larger messages may be split again.
 */
export class PushSizeLimit {
  /** The largest push to send without probing; Infinity while nothing was refused. */
  private limit = Infinity;
  /** The smallest push refused since the limit was last found to be too low (Infinity: none). */
  private refused = Infinity;
  /** When the last 413 came, on the monotonic clock. */
  private refusedAt = -Infinity;

  constructor(
    private readonly timings: PushSizeTimings = { probeIntervalMs: PUSH_SIZE_PROBE_INTERVAL_MS, memoryMs: PUSH_SIZE_MEMORY_MS },
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The most messages the next push may carry: `batchSize`, or fewer after 413s. */
  next(batchSize: number): number {
    if (this.limit >= batchSize) return batchSize;
    const since = this.now() - this.refusedAt;
    if (since < this.timings.probeIntervalMs) return this.limit;
    if (this.refused === Infinity) return Math.min(batchSize, this.limit * 2);
    if (this.refused - this.limit > 1) return Math.floor((this.limit + this.refused) / 2);
    return since < this.timings.memoryMs ? this.limit : Math.min(batchSize, this.refused);
  }

  /** The consumer answered a push of `count` messages (whatever the answer: it took the body). */
  accepted(count: number): void {
    if (count <= this.limit) return;
    this.limit = count;
    if (count >= this.refused) this.refused = Infinity;
  }

  /**
   * The consumer answered 413 to a push of `count` messages. Returns the size to send them in now: half of them
   * (at least one), or at most the limit kept when a probe was refused.
   */
  tooLarge(count: number): number {
    this.refusedAt = this.now();
    this.refused = count;
    if (count <= this.limit) this.limit = Math.max(1, Math.floor(count / 2));
    return this.limit;
  }

  /** A single message was refused: that message was too large, not the pushes that carried it. */
  messageTooLarge(): void {
    this.limit = this.refused = Infinity;
    this.refusedAt = -Infinity;
  }

  /** The size pushes are kept to, when it is below `batchSize` (for the member's view). */
  limitBelow(batchSize: number): number | undefined {
    return this.limit < batchSize ? this.limit : undefined;
  }
}
