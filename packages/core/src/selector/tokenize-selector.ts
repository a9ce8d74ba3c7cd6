import { InvalidSelectorError } from '../errors/invalid-selector-error';
import { SELECTOR_KEYWORDS, type SelectorKeyword, type SelectorToken } from './selector-token';

// Java identifier rules (Character.isJavaIdentifierStart / Part), approximated with Unicode classes.
const IDENTIFIER = /[\p{L}\p{Nl}\p{Sc}\p{Pc}][\p{L}\p{Nl}\p{Sc}\p{Pc}\p{Nd}\p{Mn}\p{Mc}]*/uy;
// Decimal only: `57`, `7.`, `.5`, `57.9E2`, `7E3`. Signs are unary operators, not part of the literal.
const NUMBER = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /\s+/y;
// Longest first, so that `<=` is not read as `<` then `=`.
const SYMBOLS = ['<>', '<=', '>=', '=', '<', '>', '+', '-', '*', '/', '(', ')', ','];
const KEYWORDS = new Set<string>(SELECTOR_KEYWORDS);

/** Throws an InvalidSelectorError in the agreed format: `Invalid selector at position N: …` (1-based). */
export function selectorError(index: number, problem: string): InvalidSelectorError {
  return new InvalidSelectorError(problem, index + 1);
}

/** Splits a selector into tokens; always ends with an `end` token. Positions are 1-based. */
export function tokenizeSelector(text: string): SelectorToken[] {
  const tokens: SelectorToken[] = [];
  let index = 0;
  while (index < text.length) {
    WHITESPACE.lastIndex = index;
    if (WHITESPACE.test(text)) {
      index = WHITESPACE.lastIndex;
      continue;
    }
    const token = readToken(text, index);
    tokens.push(token);
    index += token.text.length;
  }
  tokens.push({ kind: 'end', text: '', position: text.length + 1 });
  return tokens;
}

function readToken(text: string, index: number): SelectorToken {
  const position = index + 1;
  const char = text[index];
  if (char === "'") {
    return readString(text, index);
  }
  NUMBER.lastIndex = index;
  const number = NUMBER.exec(text);
  if (number) {
    return readNumber(number[0], index);
  }
  IDENTIFIER.lastIndex = index;
  const identifier = IDENTIFIER.exec(text);
  if (identifier) {
    const word = identifier[0];
    const upper = word.toUpperCase();
    return KEYWORDS.has(upper)
      ? { kind: 'keyword', text: word, position, keyword: upper as SelectorKeyword }
      : { kind: 'identifier', text: word, position };
  }
  const symbol = SYMBOLS.find((candidate) => text.startsWith(candidate, index));
  if (symbol !== undefined) {
    return { kind: 'symbol', text: symbol, position };
  }
  const shown = String.fromCodePoint(text.codePointAt(index) ?? 0);
  throw selectorError(index, `unexpected character ${JSON.stringify(shown)}`);
}

function readString(text: string, start: number): SelectorToken {
  let value = '';
  let index = start + 1;
  for (;;) {
    const close = text.indexOf("'", index);
    if (close < 0) {
      throw selectorError(start, 'unterminated string, expected a closing "\'" before the end of input');
    }
    value += text.slice(index, close);
    // '' inside a string stands for one quote.
    if (text[close + 1] === "'") {
      value += "'";
      index = close + 2;
      continue;
    }
    return { kind: 'string', text: text.slice(start, close + 1), position: start + 1, value };
  }
}

function readNumber(literal: string, index: number): SelectorToken {
  const exact = !/[.eE]/.test(literal);
  const value = Number(literal);
  // JS numbers are doubles: exact numerics beyond 2^53 would silently lose digits, so they are refused.
  if (exact ? !Number.isSafeInteger(value) : !Number.isFinite(value)) {
    throw selectorError(index, `the number ${literal} is out of range`);
  }
  return { kind: 'number', text: literal, position: index + 1, value, exact };
}
