import { DEFAULT_PRIORITY } from '@mmmq/core';
import type { DecodedEnvelope } from '../../format/message-envelope';

/** The header whose value orders messages: two with the same value are never in flight at once. */
export const ORDERING_KEY_HEADER = 'mmmq-ordering-key';

export enum SlotState {
  /** Ready to be handed out. */
  AVAILABLE,
  /** Handed out to a member until it settles it or its lease ends. */
  LEASED,
  /** NACKed with a delay: available again at `availableAt`. */
  DELAYED,
  /** Being dead-lettered (or, expired, dropped): settled once the dead letter is durable. */
  DEAD_LETTERING,
  SETTLED,
}

/** One delivery of a message, for the dead letter's history. */
export interface DeliveryAttempt {
  member: string;
  /** Wall-clock time, ISO 8601: for people reading the dead letter. */
  at: string;
  outcome: string;
}

/** The most attempts a dead letter's history names (the latest ones). */
export const DELIVERY_HISTORY_MAX = 16;

/** One offset of a subscription's window (cursor ≤ offset < read end) and what happened to it. */
export interface Slot {
  readonly offset: number;
  /** The message; dropped once settled. */
  envelope?: DecodedEnvelope;
  /** Payload bytes, for fetches limited by size. */
  readonly bytes: number;
  /** Bytes its ledger counts as held in memory (see WindowBudget): `bytes` from its admission until it is settled. */
  held: number;
  readonly key?: string;
  /** 0–9: higher goes first unless the subscription is strictly ordered. */
  readonly priority: number;
  /** Epoch ms (wall clock) from which the message is not handed out any more; Infinity: never. */
  readonly expiresAt: number;
  state: SlotState;
  /** Deliveries that may have reached a handler (refused connections are taken back). */
  deliveries: number;
  nacks: number;
  /** The member holding the lease. */
  member?: string;
  /** When the lease ends, on the monotonic clock; Infinity while the holder's own timer governs (a push). */
  deadline: number;
  /** When a DELAYED slot becomes available, on the monotonic clock. */
  availableAt: number;
  /** A push lease the consumer asked more time for (extend): its reply may take until then. */
  extendedUntil: number;
  history: DeliveryAttempt[];
  /** A scheduled message promoted when due: the ledger's schedule holds its offset until it is settled. */
  scheduled?: boolean;
}

export function newSlot(offset: number, envelope: DecodedEnvelope, bytes: number, deliveries: number, nacks: number): Slot {
  const key = envelope.headers[ORDERING_KEY_HEADER];
  return {
    offset,
    envelope,
    bytes,
    held: 0,
    key: key === undefined ? undefined : String(key),
    priority: envelope.priority ?? DEFAULT_PRIORITY,
    expiresAt: envelope.expiresAt ?? Infinity,
    state: SlotState.AVAILABLE,
    deliveries,
    nacks,
    deadline: Infinity,
    availableAt: 0,
    extendedUntil: 0,
    history: [],
  };
}

export function recordAttempt(slot: Slot, outcome: string): void {
  slot.history.push({ member: slot.member ?? '?', at: new Date().toISOString(), outcome });
  if (slot.history.length > DELIVERY_HISTORY_MAX) slot.history.shift();
}

/** Whether `a` is handed out before `b`: higher priority first, then lower offset (FIFO within a priority). */
export function byPriority(a: Slot, b: Slot): boolean {
  return a.priority === b.priority ? a.offset < b.offset : a.priority > b.priority;
}

/** Whether `a` is handed out before `b` by a strictly ordered subscription: lower offset, whatever the priority. */
export function byOffset(a: Slot, b: Slot): boolean {
  return a.offset < b.offset;
}
