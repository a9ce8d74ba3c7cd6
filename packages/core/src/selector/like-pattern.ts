import { wildcardMatches } from '../wildcard-match';
import type { LikeMatcher } from './selector-ast';

type LikeItem = { readonly kind: 'any' } | { readonly kind: 'one' } | { readonly kind: 'char'; readonly char: string };

/**
 * Compiles a LIKE pattern: `%` spans any sequence, `_` exactly one character (a Unicode code point),
 * `escape` makes the next character literal. Matching uses the core's greedy wildcard matcher rather than a
 * RegExp: a RegExp such as `^.*a.*a.*b$` backtracks polynomially in the number of `%`, whereas the matcher
 * is O(pattern × value) however the wildcards are arranged.
 *
 * @returns the matcher, or a problem text (e.g. the escape character ends the pattern)
 */
export function compileLikePattern(pattern: string, escape: string | undefined): LikeMatcher | string {
  const items: LikeItem[] = [];
  const chars = Array.from(pattern);
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index];
    if (char === escape) {
      index++;
      if (index >= chars.length) {
        return `the LIKE pattern ends with its escape character "${escape}"`;
      }
      items.push({ kind: 'char', char: chars[index] });
    } else if (char === '%') {
      // Consecutive `%` are one wildcard.
      if (items.at(-1)?.kind !== 'any') {
        items.push({ kind: 'any' });
      }
    } else {
      items.push(char === '_' ? { kind: 'one' } : { kind: 'char', char });
    }
  }
  return {
    matches(value: string): boolean {
      const text = Array.from(value);
      return wildcardMatches(
        items.length,
        text.length,
        (p) => items[p].kind === 'any',
        (p, t) => {
          const item = items[p];
          return item.kind === 'one' || (item.kind === 'char' && item.char === text[t]);
        },
      );
    },
  };
}
