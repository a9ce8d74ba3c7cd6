import { evaluateSelector } from './evaluate-selector';
import type { Selector } from './selector';
import { SelectorParser } from './selector-parser';
import { selectorError, tokenizeSelector } from './tokenize-selector';

/** Longest selector accepted, in UTF-16 code units; selectors travel in subscription requests and are stored. */
export const MAX_SELECTOR_LENGTH = 4096;
/** Deepest nesting of parentheses, NOT and unary signs; bounds the parser's and the evaluator's recursion. */
export const MAX_SELECTOR_DEPTH = 64;

/**
 * Parses a JMS message selector (the SQL-92 subset of JMS 1.1/2.0, "Message Selector Syntax") over message
 * headers. An identifier names a header; a missing header is NULL. See docs/destinations.md, "Selectors".
 *
 * @throws InvalidSelectorError with the 1-based position and what was expected there
 */
export function parseSelector(text: string): Selector {
  if (text.length > MAX_SELECTOR_LENGTH) {
    throw selectorError(MAX_SELECTOR_LENGTH, `the selector is ${text.length} characters long; the maximum is ${MAX_SELECTOR_LENGTH}`);
  }
  const expression = new SelectorParser(tokenizeSelector(text), MAX_SELECTOR_DEPTH).parse();
  return {
    text,
    // Only TRUE selects: FALSE, UNKNOWN and non-boolean values (a header used as a condition that holds a
    // number or a string) all skip the message.
    matches: (headers) => evaluateSelector(expression, headers) === true,
  };
}
