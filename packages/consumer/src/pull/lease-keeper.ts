import type { Logger } from '@nestjs/common';

/** How often, at most, the keeper extends leases: a third of a 1 s lease, the shortest a dispatcher may have. */
const MIN_TICK_MS = 300;

export interface LeaseKeeperSettings {
  /** The lease length each extension asks for, and the one the keeper assumes for a fetched message. */
  leaseMs: number;
  /** How long after its fetch a message's lease is extended at most; 0 turns the keeper off. */
  maxExtensionMs: number;
}

interface Held {
  fetchedAt: number;
  extendedAt: number;
}

/**
 * Keeps the leases of fetched messages alive while they wait for a worker or run, as Google Pub/Sub's clients do:
 * every third of a lease, one `extend` call renews every lease held that long, for up to `maxExtensionMs` after the
 * fetch. Without it a prefetch larger than what the handlers get through in one lease expires at the broker, which
 * delivers those messages again, handled or not (seen: 300 requests through a replier with one worker and a
 * prefetch of 100 on a busy machine, 715 extra deliveries). A handler that is stuck still loses its message: at
 * `maxExtensionMs`, or when the consumer abandons it (`maxHandlerMs`).
 */
export class LeaseKeeper {
  private readonly held = new Map<string, Held>();
  private readonly tickMs: number;
  private timer?: NodeJS.Timeout;
  private extending = false;
  private warned = false;

  constructor(
    private readonly extend: (leases: string[], leaseMs: number) => Promise<{ lost: string[] }>,
    private readonly settings: LeaseKeeperSettings,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {
    this.tickMs = Math.max(MIN_TICK_MS, Math.floor(settings.leaseMs / 3));
  }

  get enabled(): boolean {
    return this.settings.maxExtensionMs > 0;
  }

  /** Starts keeping `lease` alive, from now (its fetch). */
  hold(lease: string, now = performance.now()): void {
    if (!this.enabled) return;
    this.held.set(lease, { fetchedAt: now, extendedAt: now });
    this.timer ??= setInterval(() => void this.tick(), this.tickMs).unref();
  }

  /** The message was settled or given up: its lease is no longer the keeper's. */
  release(lease: string): void {
    this.held.delete(lease);
    if (this.held.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Extends every lease held a tick or longer, within its extension limit; one call at a time. */
  async tick(now = performance.now()): Promise<void> {
    if (this.extending) return;
    const due: string[] = [];
    for (const [lease, held] of this.held) {
      if (now - held.fetchedAt >= this.settings.maxExtensionMs) this.held.delete(lease);
      else if (now - held.extendedAt >= this.tickMs) due.push(lease);
    }
    if (due.length === 0) return;
    this.extending = true;
    try {
      const { lost } = await this.extend(due, this.settings.leaseMs);
      for (const lease of due) {
        const held = this.held.get(lease);
        if (held) held.extendedAt = now;
      }
      for (const lease of lost) this.held.delete(lease);
    } catch (error) {
      // The leases run on as they were; the next tick tries again. Once per keeper: a broker outage warns elsewhere.
      if (!this.warned) this.logger.warn(`Extending ${due.length} leases failed; retrying: ${(error as Error).message}`);
      this.warned = true;
    } finally {
      this.extending = false;
    }
  }
}
