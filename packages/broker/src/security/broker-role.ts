/**
 * What a token may do. `publish`: the publish endpoints and the publish stream (optionally limited to topic
 * patterns); `consume`: push registration, the dispatcher API; `admin`: everything, including dead letters and
 * subscriptions.
 */
export const BROKER_ROLES = ['publish', 'consume', 'admin'] as const;

export type BrokerRole = (typeof BROKER_ROLES)[number];

/** The role that grants every other one. */
export const ADMIN_ROLE: BrokerRole = 'admin';

export function isBrokerRole(value: unknown): value is BrokerRole {
  return (BROKER_ROLES as readonly unknown[]).includes(value);
}
