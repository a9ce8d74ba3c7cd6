import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';

/** Who receives a subscription's messages when its dispatcher is `exclusive`: one member at a time. */
interface Member {
  /** Since when a push member's pushes fail; undefined while it answers. */
  failingSince?: number;
  /** When a pull member last fetched or settled. */
  lastSeen: number;
  push: boolean;
}

/**
 * The members of an exclusive subscription in the order they joined. The active one keeps receiving while it is
 * alive; when it has not been — a push member failing, a pull member silent — for a lease period, the first live
 * member after it in join order takes over (and its unsettled messages come back to it in offset order as their
 * leases end). A member that recovers waits as a backup: activity does not flap back.
 *
 * A takeover wakes the members (`tookOver`): a backup's push loop stopped when it was refused, and nothing else would
 * start it before the next publish. A timer re-elects when the active member's lease period runs out, so the takeover
 * does not wait for the failing member's next retry (its backoff may be longer than the lease period).
 */
export class MemberRoster {
  private readonly logger = new Logger(MemberRoster.name);
  private readonly members = new Map<string, Member>();
  private active?: string;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly label: string,
    private readonly leaseMs: number,
    private readonly tookOver: () => void = () => undefined,
  ) {}

  join(id: string, push: boolean, now: number): void {
    if (!this.members.has(id)) this.members.set(id, { lastSeen: now, push });
  }

  leave(id: string): void {
    this.members.delete(id);
    if (this.active === id) this.active = undefined;
  }

  seen(id: string, now: number): void {
    const member = this.members.get(id);
    if (!member) return;
    member.lastSeen = now;
    member.failingSince = undefined;
  }

  failing(id: string, now: number): void {
    const member = this.members.get(id);
    if (member && member.failingSince === undefined) member.failingSince = now;
    if (id === this.active) this.watch();
  }

  /** Whether `id` is the member that receives now (choosing a new one if the active one is gone). */
  mayReceive(id: string, now: number): boolean {
    this.elect(now);
    return this.active === id;
  }

  get activeMember(): string | undefined {
    return this.active;
  }

  /** The active member while it is alive (without electing another): who holds an exclusive subscription now. */
  liveActive(now: number): string | undefined {
    return this.active !== undefined && this.alive(this.active, now) ? this.active : undefined;
  }

  /** No more timers: the subscription stopped. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private elect(now: number): void {
    if (this.active === undefined || !this.alive(this.active, now)) {
      const previous = this.active;
      this.active = [...this.members.keys()].find((candidate) => this.alive(candidate, now));
      if (this.active !== previous && this.active !== undefined) {
        this.logger.log(`${this.label}: ${this.active} is the active consumer${previous ? ` (took over from ${previous})` : ''}`);
        // After the caller's turn: it may be the old member's own take, which must finish first.
        queueMicrotask(() => this.stopped || this.tookOver());
      }
    }
    // Also when the active member stays: heard from meanwhile, or the timer fired a little early.
    this.watch();
  }

  /** Arms the timer for the moment the active member stops being alive unless heard from (none while it answers). */
  private watch(): void {
    const due = this.active === undefined ? undefined : this.deadlineOf(this.active);
    if (this.stopped || this.timer !== undefined || due === undefined) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.elect(performance.now());
      },
      Math.max(0, due - performance.now()) + 1,
    );
    this.timer.unref();
  }

  /** When `id` is no longer alive if nothing is heard from it; undefined for a push member that answers. */
  private deadlineOf(id: string): number | undefined {
    const member = this.members.get(id);
    if (!member) return undefined;
    if (member.push) return member.failingSince === undefined ? undefined : member.failingSince + this.leaseMs;
    return member.lastSeen + this.leaseMs;
  }

  private alive(id: string, now: number): boolean {
    const due = this.members.has(id) ? this.deadlineOf(id) : -Infinity;
    return due === undefined || now < due;
  }
}
