/** The delivery an inbox reserves: one row per message and consumer, so each consumer id processes a message once. */
export interface InboxKey {
  /** The producer's message id, the same on every redelivery. */
  messageId: string;
  /** The listener's consumer id. */
  consumerId: string;
}

/** What an inbox did with a delivery: ran the handler (and committed), or found the message processed already. */
export type InboxOutcome<T> = { status: 'processed'; result: T } | { status: 'duplicate' };

/**
 * The inbox behind `@MMMQListener(pattern, { inbox: true })`, and its injection token: an abstract class, so that the
 * consumer finds an implementation without depending on any database library. `@mmmq/postgres`'s `MmmqInboxModule`
 * provides one. Without a provider, a listener with `inbox: true` fails bootstrap.
 */
export abstract class ListenerInbox {
  /**
   * How long a processed message is remembered (milliseconds), or `undefined` for ever. Bootstrap warns when it is not
   * longer than the broker's redelivery window: a redelivery after its row is gone would run the handler again.
   */
  abstract readonly retentionMs: number | undefined;

  /**
   * Opens a transaction of the application's database library, reserves `key` in it, and — unless the key was
   * reserved already — runs `handler` with that transaction; commits when `handler` resolves, rolls back (and
   * rethrows) when it throws. A concurrent delivery of the same key waits for this transaction: it finds a duplicate
   * if this one commits and processes the message if it rolls back.
   */
  abstract process<T>(key: InboxKey, handler: (transaction: unknown) => Promise<T>): Promise<InboxOutcome<T>>;
}
