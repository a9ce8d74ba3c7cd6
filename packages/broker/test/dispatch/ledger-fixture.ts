import type { MessageHeaders } from '@mmmq/core';
import { DeliveryLedger, RedeliveryLimits } from '../../src/dispatch/ledger/delivery-ledger';
import { ORDERING_KEY_HEADER, Slot } from '../../src/dispatch/ledger/slot';
import type { DecodedEnvelope } from '../../src/format/message-envelope';
import { cursorOnly, SubscriptionSnapshot } from '../../src/storage/subscription-snapshot';

/** The limits the ledger tests use unless they say otherwise: small enough to reach in a few steps. */
export const TEST_LIMITS: RedeliveryLimits = { maxDeliveries: 5, maxNackRetries: 2 };

/** A pull lease long enough that nothing expires unless a test moves time past it. */
export const LEASE_MS = 1_000;

/** One message; `key` puts it in an ordering key; `properties` give it a priority or an expiry. */
export function envelope(id: string, key?: string, properties: { priority?: number; expiresAt?: number } = {}): DecodedEnvelope {
  const headers: MessageHeaders = key === undefined ? {} : { [ORDERING_KEY_HEADER]: key };
  return { id, topic: 't', publishedAt: 0, headers, ...properties, content: Buffer.from('{}') };
}

/** What one admitted entry is: a message (with an optional key and size) or a corrupt entry. */
export interface Entry {
  key?: string;
  bytes?: number;
  corrupt?: boolean;
  priority?: number;
  /** Epoch ms, compared with the `wallNow` of a take. */
  expiresAt?: number;
}

export function admitAll(ledger: DeliveryLedger, entries: Entry[]): void {
  for (const entry of entries) {
    const offset = ledger.readEnd;
    if (entry.corrupt) ledger.admit(new Error(`corrupt entry at ${offset}`), 0);
    else {
      const { priority, expiresAt } = entry;
      const properties = { ...(priority === undefined ? {} : { priority }), ...(expiresAt === undefined ? {} : { expiresAt }) };
      ledger.admit(envelope(`m${offset}`, entry.key, properties), entry.bytes ?? 10);
    }
  }
}

/** A ledger at `snapshot` (default: a fresh one at 0) holding `entries`. */
export function ledgerOf(
  entries: Entry[] | number,
  snapshot: SubscriptionSnapshot = cursorOnly(0),
  limits = TEST_LIMITS,
  strictOrder = false,
): DeliveryLedger {
  const ledger = new DeliveryLedger(snapshot, limits, strictOrder);
  admitAll(ledger, typeof entries === 'number' ? Array.from({ length: entries }, () => ({})) : entries);
  return ledger;
}

export function offsets(slots: Slot[]): number[] {
  return slots.map((slot) => slot.offset);
}

/** Takes one message for `member` at `now` (wall clock 0: nothing has expired) and fails the test if there is none. */
export function takeOne(ledger: DeliveryLedger, now = 0, member = 'm1', leaseMs = LEASE_MS): Slot {
  const [slot] = ledger.take(member, 1, Infinity, now, leaseMs, 0);
  if (!slot) throw new Error(`nothing available to take at ${now}`);
  return slot;
}

export const NACK = { outcome: 'NACK', counted: true, nack: { message: 'not now' } };
export const HTTP_500 = { outcome: 'HTTP 500', counted: true };
export const REFUSED = { outcome: 'connection refused', counted: false };
