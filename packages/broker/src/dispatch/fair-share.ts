/** What a subscription knows when a member asks to take: how many compete, how much there is to share. */
export interface ShareState {
  /** Push hosts that are not backing off. */
  pushMembers: number;
  /** Whether the member asking is one of them. */
  push: boolean;
  /** Leased now plus read and available plus not read yet: the messages the members share. */
  outstanding: number;
  /** What the member asking holds already. */
  held: number;
  /** `maxActiveMembers`; Infinity without one. */
  maxActive: number;
}

/**
 * An even split of what a subscription has to deliver among its competing members (docs/delivery.md § Competing
 * consumers): a member takes no more than would leave it holding `ceil(outstanding / members)`. Without it, the first
 * push host to wake leased whole windows (`batchSize` × `maxInFlight`, 2,000 messages by default) of a backlog, and
 * a pull member beside it, holding at most its prefetch, got what was left (100 of 3,000 beside two push hosts
 * handling at the same speed). Each member still holds its share at once, so none waits on another to keep busy,
 * and settling frees room as before.
 *
 * Competing members: the push hosts not backing off, the member asking, and the named pull and in-process members
 * that hold leases or have a fetch waiting. A member that holds nothing and does not ask (it recovered, it is idle)
 * takes no share from the others. Anonymous fetches (no `member`) neither count nor are limited: each is a member
 * of its own.
 */
export class FairShare {
  /** Named members other than push hosts, by when they last asked or settled (monotonic ms), oldest first. */
  private readonly lastSeen = new Map<string, number>();
  /** Named members with a fetch waiting (long poll), and how many. */
  private readonly waiting = new Map<string, number>();

  constructor(private readonly forgetAfterMs: () => number) {}

  /** Named members other than push hosts that asked within about a lease period (some may hold nothing now). */
  get tracked(): number {
    return this.lastSeen.size;
  }

  /** A named pull or in-process member asked to take (a fetch, also every look of a waiting long poll). */
  seen(member: string, now: number): void {
    // Re-inserted, so the map stays in the order of last sight: pruning stops at the first recent one.
    this.lastSeen.delete(member);
    this.lastSeen.set(member, now);
  }

  /** A member settled: alive, if it is one that counts (an anonymous fetch's member is not). */
  refresh(member: string, now: number): void {
    if (this.lastSeen.has(member)) this.seen(member, now);
  }

  /** A named member's fetch waits for messages: it competes until the returned function is called. */
  wait(member: string): () => void {
    this.waiting.set(member, (this.waiting.get(member) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.waiting.get(member) ?? 1) - 1;
      if (left > 0) this.waiting.set(member, left);
      else this.waiting.delete(member);
    };
  }

  leave(member: string): void {
    this.lastSeen.delete(member);
  }

  /** How many messages `member` may take now: Infinity when it competes with no one. */
  room(member: string, state: ShareState, holds: (member: string) => boolean, now: number): number {
    let members = state.pushMembers + (state.push ? 0 : 1);
    const since = now - this.forgetAfterMs();
    for (const [other, at] of this.lastSeen) {
      // Silent for a lease period: its leases ran out, or it is kept alive by extends (which refresh it).
      if (at < since && !this.waiting.has(other)) this.lastSeen.delete(other);
      else if (other !== member && (this.waiting.has(other) || holds(other))) members++;
    }
    members = Math.min(members, state.maxActive);
    if (members <= 1) return Infinity;
    return Math.max(0, Math.ceil(state.outstanding / members) - state.held);
  }
}
