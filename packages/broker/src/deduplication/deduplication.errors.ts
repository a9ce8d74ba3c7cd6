import { MmmqError } from '@mmmq/core';
import { describeCause } from '../storage/journal/describe-cause';

/**
 * Reading a topic's log back for its de-duplication window failed part way: the ids read until then (the newest
 * messages, from {@link readBackTo} to the tail) are remembered, older ones within the window are not.
 */
export class DeduplicationRestoreError extends MmmqError {
  constructor(
    readonly topic: string,
    /** Ids remembered: those of the messages read back before the failure. */
    readonly restored: number,
    /** The oldest offset read back; the entries below it within the window were not. */
    readonly readBackTo: number,
    cause: unknown,
  ) {
    super(
      `Topic ${topic}: reading its log back for de-duplication failed below offset ${readBackTo} (${describeCause(cause)}); ` +
        `the ${restored} id(s) read from there to the tail are remembered, re-publishes of older messages within the ` +
        'window are stored again',
      { cause },
    );
  }
}
