import { type SelectorKeyword, type SelectorToken, describeToken } from './selector-token';
import { selectorError } from './tokenize-selector';

/** Reading position over a selector's tokens, with the accept / expect helpers the parser is written in. */
export class SelectorTokenCursor {
  protected next = 0;

  constructor(protected readonly tokens: readonly SelectorToken[]) {}

  protected peek(): SelectorToken {
    return this.tokens[this.next];
  }

  protected acceptKeyword(keyword: SelectorKeyword): boolean {
    const token = this.peek();
    return token.kind === 'keyword' && token.keyword === keyword && ++this.next > 0;
  }

  protected acceptSymbol(symbol: string): boolean {
    const token = this.peek();
    return token.kind === 'symbol' && token.text === symbol && ++this.next > 0;
  }

  protected expectKeyword(keyword: SelectorKeyword, expectation: string): void {
    if (!this.acceptKeyword(keyword)) {
      throw this.expected(this.peek(), expectation);
    }
  }

  protected expectSymbol(symbol: string, expectation: string): void {
    if (!this.acceptSymbol(symbol)) {
      throw this.expected(this.peek(), expectation);
    }
  }

  protected expectString(expectation: string): { value: string; position: number } {
    const token = this.peek();
    if (token.kind !== 'string') {
      throw this.expected(token, expectation);
    }
    this.next++;
    return token;
  }

  protected expected(token: SelectorToken, expectation: string, found = describeToken(token)): Error {
    return selectorError(token.position - 1, `expected ${expectation}, found ${found}`);
  }
}
