import { TopicPattern } from '@mmmq/core';

const SEPARATOR = '.';

/**
 * The binding key of an MMMQ topic pattern on a topic exchange: a `*` segment stays `*` (one segment), a `**` segment
 * becomes `#` (zero or more segments), literal segments stay as they are.
 */
export function bindingKeyOf(pattern: string): string {
  return TopicPattern.of(pattern)
    .value.split(SEPARATOR)
    .map((segment) => (segment === '**' ? '#' : segment))
    .join(SEPARATOR);
}

/**
 * Why `pattern` has no binding key, or undefined when it has one: a topic exchange only knows whole-segment
 * wildcards, so a `?` or a `*` inside a segment (`order-*`, `v?`) cannot be expressed.
 */
export function unsupportedPattern(pattern: string): string | undefined {
  const partial = TopicPattern.of(pattern)
    .value.split(SEPARATOR)
    .find((segment) => segment !== '*' && segment !== '**' && /[*?]/.test(segment));
  if (partial === undefined) return undefined;
  return (
    `pattern ${JSON.stringify(pattern)}: RabbitMQ topic bindings only have whole-segment wildcards ('*' = one segment, ` +
    `'#' = any number), so the segment ${JSON.stringify(partial)} (a '?' or a '*' inside a segment) cannot be expressed`
  );
}
