/** What a subscription knows when a member asks to take: how many compete, how much there is to share. */
export interface ShareState {
  /** Push hosts that are not backing off. */
  pushMembers: number;
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
 * and settling frees room as before: with a backlog larger than the members' windows, the split decides.
 *
 * Members are the push hosts not backing off and the named pull and in-process members that took or waited within
 * the last lease period (they call again at least that often while alive). Anonymous fetches (no `member`) neither
 * count nor are limited: each is a member of its own.
 */
export class FairShare {
  /** Named non-push members by when they last asked (monotonic ms). */
  private readonly lastSeen = new Map<string, number>();

  constructor(private readonly windowMs: () => number) {}

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

  leave(member: string): void {
    this.lastSeen.delete(member);
  }

  /** How many messages `member` may take now: Infinity when it competes with no one. */
  room(state: ShareState, now: number): number {
    const members = Math.min(state.pushMembers + this.othersSeen(now), state.maxActive);
    if (members <= 1) return Infinity;
    return Math.max(0, Math.ceil(state.outstanding / members) - state.held);
  }

  private othersSeen(now: number): number {
    const since = now - this.windowMs();
    for (const [member, at] of this.lastSeen) {
      if (at >= since) break;
      this.lastSeen.delete(member);
    }
    return this.lastSeen.size;
  }
}
