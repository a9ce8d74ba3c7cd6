import type { BrokerRole } from './broker-role';

/** Shortest token accepted: 16 characters leave no room for guessing, even from a small alphabet. */
export const MIN_TOKEN_LENGTH = 16;
/** Longest token accepted; a token travels in a header, which servers cap at a few KiB. */
export const MAX_TOKEN_LENGTH = 4096;

/** One bearer token and what it may do. */
export interface AuthTokenOptions {
  /** The secret itself: printable ASCII without spaces, at least {@link MIN_TOKEN_LENGTH} characters. */
  token: string;
  /** At least one of `publish`, `consume`, `admin` (which implies the others). */
  roles: BrokerRole[];
  /**
   * Topic patterns (as for dispatchers: `order.*`, `audit.**`) this token may publish to; any topic when absent.
   * Applies however the token got the right to publish, `admin` included.
   */
  topics?: string[];
  /**
   * Consumer-id patterns (the same syntax: `billing`, `billing.*`, `billing.**`) this token may act for: the
   * dispatchers it may list, register, change and delete, the pull consumers it may fetch and settle for, the
   * consumer ids its transactions may settle. Any consumer id when absent (what a consume token always meant).
   * Only with the `consume` role, and never with `admin`: an admin token reads every consumer's dead letters and
   * every topic, so a limit on it would not hold.
   */
  consumers?: string[];
  /** How the broker names this token in errors; never the token itself. Default `auth.tokens[i]`. */
  name?: string;
}

export interface AuthOptions {
  /**
   * Bearer tokens the broker accepts (`Authorization: Bearer …` on HTTP, an AUTH request on the publish stream).
   * Several may be valid at once, so a token can be rotated without downtime. Without any, authentication is off
   * and the broker serves loopback clients only.
   */
  tokens?: AuthTokenOptions[];
}
