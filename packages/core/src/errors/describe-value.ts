/** How much of an offending value an error message quotes; enough to recognise it, not enough to flood a log. */
export const DESCRIBED_VALUE_MAX_LENGTH = 100;

const ELLIPSIS = '…';

/**
 * Renders a rejected value for an error message. Strings are JSON-quoted so that control characters,
 * NUL and trailing whitespace are visible instead of silently corrupting the message or the log line.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    return value.length > DESCRIBED_VALUE_MAX_LENGTH
      ? `${JSON.stringify(value.slice(0, DESCRIBED_VALUE_MAX_LENGTH))}${ELLIPSIS} (${value.length} characters)`
      : JSON.stringify(value);
  }
  if (typeof value === 'object' && value !== null) {
    return truncate(stringifyObject(value));
  }
  // `String()` rather than a template literal: symbols throw on implicit conversion.
  return typeof value === 'function' ? 'a function' : String(value);
}

function stringifyObject(value: object): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // Circular structures and BigInts cannot be serialised; the kind of value is still useful.
    return Array.isArray(value) ? 'an array' : 'an object';
  }
}

function truncate(text: string): string {
  return text.length > DESCRIBED_VALUE_MAX_LENGTH ? `${text.slice(0, DESCRIBED_VALUE_MAX_LENGTH)}${ELLIPSIS}` : text;
}
