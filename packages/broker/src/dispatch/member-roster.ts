import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { MaxMembersReachedError } from './dispatcher.errors';

/** How many members of a subscription receive at once, and how many it admits: a dispatcher's roster limits. */
export interface RosterLimits {
  /** The first this many live members (in join order) receive; the rest wait as backups. Infinity: all. */
  maxActive: number;
  /** Live members admitted at most; another one is refused. Infinity: no cap. */
  maxMembers: number;
}

/** One member of a roster. */
interface Member {
  /** Since when a push member's pushes fail; undefined while it answers. */
  failingSince?: number;
  /** When a pull member last fetched or settled. */
  lastSeen: number;
  push: boolean;
}

/**
 * The members of a subscription whose dispatcher limits them (`maxActiveMembers`, `exclusive`, `maxMembers`), in
 * the order they joined. The first `maxActive` live members receive, and keep receiving while alive; when one has
 * not been — a push member failing, a pull member silent — for a lease period, the earliest live backup in join order
 * takes its place (and its unsettled messages come back as their leases end). A member that recovers waits as a
 * backup: activity does not flap back. A pull member silent for a lease period is forgotten: fetching again joins it
 * anew, at the end. Push members stay while they are hosts of the dispatcher.
 *
 * A takeover wakes the members (`tookOver`): a backup's push loop stopped when it was refused, and nothing else would
 * start it before the next publish. A timer re-elects when an active member's lease period runs out, so the takeover
 * does not wait for the failing member's next retry (its backoff may be longer than the lease period).
 */
export class MemberRoster {
  private readonly logger = new Logger(MemberRoster.name);
  private readonly members = new Map<string, Member>();
  /** The members receiving now, in the order they became active. */
  private readonly active = new Set<string>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly label: string,
    private readonly leaseMs: number,
    private readonly limits: RosterLimits,
    private readonly tookOver: () => void = () => undefined,
  ) {}

  /**
   * Adds a member at the end of the join order (a known one stays where it is).
   * @throws MaxMembersReachedError when `maxMembers` live members are in already (push hosts are checked with the definition)
   */
  join(id: string, push: boolean, now: number): void {
    if (this.members.has(id)) return;
    this.forgetSilent(now);
    if (!push && this.members.size >= this.limits.maxMembers) {
      throw new MaxMembersReachedError(this.label, this.limits.maxMembers, [...this.members.keys()], id);
    }
    this.members.set(id, { lastSeen: now, push });
  }

  leave(id: string): void {
    this.members.delete(id);
    if (this.active.delete(id)) this.elect(performance.now());
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
    if (this.active.has(id)) this.watch();
  }

  /** Whether `id` is one of the members that receive now (choosing others if active ones are gone). */
  mayReceive(id: string, now: number): boolean {
    this.elect(now);
    return this.active.has(id);
  }

  /** The members receiving now, in the order they became active. */
  get activeMembers(): string[] {
    return [...this.active];
  }

  /** Members counted against `maxMembers`: those joined and not forgotten. */
  get size(): number {
    return this.members.size;
  }

  /** The active members alive now (without electing others): who holds the subscription. */
  liveActive(now: number): string[] {
    return [...this.active].filter((id) => this.alive(id, now));
  }

  /** No more timers: the subscription stopped. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private elect(now: number): void {
    const gone = [...this.active].filter((id) => !this.alive(id, now));
    for (const id of gone) this.active.delete(id);
    this.forgetSilent(now);
    const chosen: string[] = [];
    for (const [candidate] of this.members) {
      if (this.active.size >= this.limits.maxActive) break;
      if (this.active.has(candidate) || !this.alive(candidate, now)) continue;
      this.active.add(candidate);
      chosen.push(candidate);
    }
    if (chosen.length > 0) {
      const tookOverFrom = gone.length > 0 ? ` (took over from ${gone.join(', ')})` : '';
      this.logger.log(
        `${this.label}: ${chosen.join(', ')} ${chosen.length > 1 ? 'are active consumers' : 'is an active consumer'}${tookOverFrom}`,
      );
      // After the caller's turn: it may be the old member's own take, which must finish first.
      queueMicrotask(() => this.stopped || this.tookOver());
    }
    // Also when the active members stay: heard from meanwhile, or the timer fired a little early.
    this.watch();
  }

  /** Pull members silent for a lease period leave: they are not counted, and fetching again joins them at the end. */
  private forgetSilent(now: number): void {
    for (const [id, member] of this.members) {
      if (!member.push && !this.alive(id, now)) this.members.delete(id);
    }
  }

  /** Arms the timer for the first moment an active member stops being alive unless heard from (none while all answer). */
  private watch(): void {
    if (this.stopped || this.timer !== undefined) return;
    let due: number | undefined;
    for (const id of this.active) {
      const deadline = this.deadlineOf(id);
      if (deadline !== undefined && (due === undefined || deadline < due)) due = deadline;
    }
    if (due === undefined) return;
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
