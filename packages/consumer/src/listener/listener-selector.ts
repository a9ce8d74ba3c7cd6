import { describeValue, InvalidSelectorError, parseSelector } from '@mmmq/core';

/**
 * Checks a listener's `selector` at bootstrap, so that a typo fails there rather than at registration: returns the
 * text, which is what the broker is sent (it parses it again, once per dispatcher). `fail` builds the error that
 * names the option (`listeners["x"].selector is invalid at position 9: …`).
 */
export function checkListenerSelector(name: string, value: unknown, fail: (message: string, cause?: unknown) => Error): string {
  if (typeof value !== 'string') throw fail(`${name} must be a string, got ${describeValue(value)}`);
  try {
    parseSelector(value);
  } catch (error) {
    if (!(error instanceof InvalidSelectorError)) throw error;
    throw fail(`${name} is invalid at position ${error.position}: ${error.reason}`, error);
  }
  return value;
}
