import { describeValue, MmmqError } from '@mmmq/core';

/** A pattern that is not a string, such as Nest's `{ cmd: 'sum' }`: MMMQ topics are strings. */
export class UnsupportedPatternError extends MmmqError {
  constructor(pattern: unknown) {
    super(
      `MMMQ topics are strings, like emit('order.created', data); got the pattern ${describeValue(pattern)}. ` +
        'Object patterns are not supported; nothing was published.',
    );
  }
}
