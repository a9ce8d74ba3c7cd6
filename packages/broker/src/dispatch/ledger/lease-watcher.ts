import type { Slot } from './slot';

/** Told by a ledger when a slot becomes leased and when that lease ends (settled, released, terminated). */
export interface LeaseWatcher {
  leased(slot: Slot): void;
  /** Called while the slot still holds its message (before a settlement drops it). */
  ended(slot: Slot): void;
}
