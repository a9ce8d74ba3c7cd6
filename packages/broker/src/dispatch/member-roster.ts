import { Logger } from '@nestjs/common';

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
 */
export class MemberRoster {
  private readonly logger = new Logger(MemberRoster.name);
  private readonly members = new Map<string, Member>();
  private active?: string;

  constructor(
    private readonly label: string,
    private readonly leaseMs: number,
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
  }

  /** Whether `id` is the member that receives now (choosing a new one if the active one is gone). */
  mayReceive(id: string, now: number): boolean {
    if (this.active !== undefined && this.alive(this.active, now)) return this.active === id;
    const previous = this.active;
    this.active = [...this.members.keys()].find((candidate) => this.alive(candidate, now));
    if (this.active !== previous && this.active !== undefined) {
      this.logger.log(`${this.label}: ${this.active} is the active consumer${previous ? ` (took over from ${previous})` : ''}`);
    }
    return this.active === id;
  }

  get activeMember(): string | undefined {
    return this.active;
  }

  private alive(id: string, now: number): boolean {
    const member = this.members.get(id);
    if (!member) return false;
    if (member.push) return member.failingSince === undefined || now - member.failingSince < this.leaseMs;
    return now - member.lastSeen < this.leaseMs;
  }
}
