import { Slot, SlotState } from './ledger/slot';

/** A leased message and the subscription it belongs to (generic: the subscription imports this file). */
export interface Leased<S> {
  subscription: S;
  slot: Slot;
}

/**
 * The messages leased to one consumer id, by message id, across all its topics: a settlement by `{"id"}` finds its
 * lease in one lookup. Scanning every leased slot of every subscription per item let one request of 10,000 unknown ids
 * block the event loop for seconds. The consumer's ledgers keep it as they lease and end leases (see LeaseWatcher), so
 * it holds one entry per leased message — bounded by the subscriptions' windows — and nothing once they are settled.
 * An id leased more than once at a time (published twice, or in two topics) resolves to the oldest of its leases.
 */
export class LeasedIds<S> {
  private readonly byId = new Map<string, Leased<S> | Leased<S>[]>();

  add(id: string, subscription: S, slot: Slot): void {
    const known = this.byId.get(id);
    const leased = { subscription, slot };
    if (known === undefined) this.byId.set(id, leased);
    else if (Array.isArray(known)) known.push(leased);
    else this.byId.set(id, [known, leased]);
  }

  remove(id: string, slot: Slot): void {
    const known = this.byId.get(id);
    if (known === undefined) return;
    if (!Array.isArray(known)) {
      if (known.slot === slot) this.byId.delete(id);
      return;
    }
    const at = known.findIndex((leased) => leased.slot === slot);
    if (at >= 0) known.splice(at, 1);
    if (known.length === 1) this.byId.set(id, known[0]);
    else if (known.length === 0) this.byId.delete(id);
  }

  /** The lease of the message with this id, if one is leased now. */
  find(id: string): Leased<S> | undefined {
    const known = this.byId.get(id);
    if (known === undefined) return undefined;
    // Every entry is leased (ended leases are removed); checked all the same, as it costs nothing.
    if (!Array.isArray(known)) return known.slot.state === SlotState.LEASED ? known : undefined;
    return known.find((leased) => leased.slot.state === SlotState.LEASED);
  }

  /** Ids with a lease now. */
  get size(): number {
    return this.byId.size;
  }
}
