/**
 * When a message counts as settled for the broker (docs/consumer.md, "Acknowledge modes"):
 * - `auto`: acknowledged once its handler returned (the default);
 * - `manual`: the handler settles it itself with `context.ack()`, `nack()` or `terminate()`;
 * - `dupsOk`: as `auto`, but pulled messages are acknowledged lazily in batches (duplicates after a crash);
 * - `none`: settled when it is received, before the handler runs (lost if the consumer crashes).
 */
export type AckMode = 'auto' | 'manual' | 'dupsOk' | 'none';

export const ACK_MODES: readonly AckMode[] = ['auto', 'manual', 'dupsOk', 'none'];

/** Acknowledge after the handler succeeds, as every release before ack modes existed did. */
export const DEFAULT_ACK_MODE: AckMode = 'auto';

export function isAckMode(value: unknown): value is AckMode {
  return (ACK_MODES as readonly unknown[]).includes(value);
}
