/** The keywords of JMS's selector syntax; matched case-insensitively and never usable as identifiers. */
export const SELECTOR_KEYWORDS = ['NOT', 'AND', 'OR', 'BETWEEN', 'LIKE', 'IN', 'IS', 'NULL', 'TRUE', 'FALSE', 'ESCAPE'] as const;
export type SelectorKeyword = (typeof SELECTOR_KEYWORDS)[number];

export type SelectorToken =
  | { readonly kind: 'number'; readonly text: string; readonly position: number; readonly value: number; readonly exact: boolean }
  | { readonly kind: 'string'; readonly text: string; readonly position: number; readonly value: string }
  | { readonly kind: 'identifier'; readonly text: string; readonly position: number }
  | { readonly kind: 'keyword'; readonly text: string; readonly position: number; readonly keyword: SelectorKeyword }
  /** Operators, parentheses and the comma. */
  | { readonly kind: 'symbol'; readonly text: string; readonly position: number }
  | { readonly kind: 'end'; readonly text: ''; readonly position: number };

/** How a token is named in an error message. */
export function describeToken(token: SelectorToken): string {
  switch (token.kind) {
    case 'end':
      return 'end of input';
    case 'string':
      return `the string ${token.text}`;
    case 'identifier':
      return `the identifier "${token.text}"`;
    case 'keyword':
      return token.keyword;
    default:
      return `"${token.text}"`;
  }
}
