import { type ArithmeticOperator, type ComparisonOperator, type LikeMatcher, type SelectorNode, staticType } from './selector-ast';
import { compileLikePattern } from './like-pattern';
import { type SelectorToken, describeToken } from './selector-token';
import { SelectorTokenCursor } from './selector-token-cursor';
import { selectorError } from './tokenize-selector';

const COMPARISON_OPERATORS = new Set<string>(['=', '<>', '<', '<=', '>', '>=']);
const ORDERING_OPERATORS = new Set<string>(['<', '<=', '>', '>=']);
const CONDITION = 'a condition (a comparison, TRUE, FALSE, an identifier or a predicate)';

/**
 * Recursive descent over JMS's selector grammar, one method per precedence level, loosest first:
 * OR, AND, NOT, comparison and predicates, + -, * /, unary + -, then literals, identifiers and parentheses.
 * Hand-written because the grammar is small and no parser library gives the error positions and messages
 * we want without adding a runtime dependency to core.
 *
 * Types are checked where the syntax fixes them (a literal, an arithmetic expression, a condition), so that
 * `price + 'a'` or `1 AND x` fail here; identifiers are only known per message and are checked when
 * evaluated.
 */
export class SelectorParser extends SelectorTokenCursor {
  private depth = 0;

  constructor(
    tokens: readonly SelectorToken[],
    private readonly maxDepth: number,
  ) {
    super(tokens);
  }

  parse(): SelectorNode {
    const node = this.condition(() => this.or());
    const token = this.peek();
    if (token.kind !== 'end') {
      throw this.expected(token, token.kind === 'symbol' && token.text === ')' ? 'a matching "(" before ")"' : 'AND, OR or end of input');
    }
    return node;
  }

  private or(): SelectorNode {
    return this.logical('OR', () => this.and());
  }

  private and(): SelectorNode {
    return this.logical('AND', () => this.not());
  }

  /** A chain of AND or OR; a single operand is returned untyped, since `(price + 1)` is fine in parentheses. */
  private logical(keyword: 'AND' | 'OR', operand: () => SelectorNode): SelectorNode {
    const start = this.peek();
    const first = operand();
    if (!this.acceptKeyword(keyword)) {
      return first;
    }
    this.requireCondition(first, start);
    const operands = [first];
    do {
      operands.push(this.condition(operand));
    } while (this.acceptKeyword(keyword));
    return { type: keyword === 'AND' ? 'and' : 'or', operands };
  }

  private not(): SelectorNode {
    if (!this.acceptKeyword('NOT')) {
      return this.comparison();
    }
    return this.nested(() => ({ type: 'not', operand: this.condition(() => this.not()) }));
  }

  private comparison(): SelectorNode {
    const start = this.peek();
    const left = this.additive();
    const token = this.peek();
    if (token.kind === 'symbol' && COMPARISON_OPERATORS.has(token.text)) {
      this.next++;
      const operator = token.text as ComparisonOperator;
      const rightStart = this.peek();
      const right = this.additive();
      if (ORDERING_OPERATORS.has(operator)) {
        this.requireNumber(left, start, `before "${operator}"`);
        this.requireNumber(right, rightStart, `after "${operator}"`);
      }
      return { type: 'comparison', operator, left, right };
    }
    if (token.kind !== 'keyword') {
      return left;
    }
    if (token.keyword === 'IS') {
      this.next++;
      this.requireIdentifier(left, start, 'IS NULL');
      const negated = this.acceptKeyword('NOT');
      this.expectKeyword('NULL', negated ? 'NULL after "IS NOT"' : 'NULL or NOT NULL after "IS"');
      return { type: 'isNull', negated, operand: left };
    }
    const negated = token.keyword === 'NOT';
    const predicate = negated ? this.tokens[this.next + 1] : token;
    if (predicate.kind !== 'keyword' || !['BETWEEN', 'LIKE', 'IN'].includes(predicate.keyword)) {
      if (negated) {
        throw this.expected(predicate, 'BETWEEN, LIKE or IN after "NOT"');
      }
      return left;
    }
    this.next += negated ? 2 : 1;
    if (predicate.keyword === 'BETWEEN') {
      this.requireNumber(left, start, 'before BETWEEN');
      const low = this.numberOperand('after BETWEEN');
      this.expectKeyword('AND', 'AND between the bounds of BETWEEN');
      const high = this.numberOperand('after AND in BETWEEN');
      return { type: 'between', negated, operand: left, low, high };
    }
    this.requireIdentifier(left, start, predicate.keyword);
    return predicate.keyword === 'LIKE'
      ? { type: 'like', negated, operand: left, pattern: this.likePattern() }
      : { type: 'in', negated, operand: left, values: this.inList() };
  }

  private likePattern(): LikeMatcher {
    const pattern = this.expectString('a string pattern after LIKE');
    let escape: string | undefined;
    if (this.acceptKeyword('ESCAPE')) {
      const escapeToken = this.peek();
      escape = this.expectString('a string after ESCAPE').value;
      if (Array.from(escape).length !== 1) {
        throw selectorError(escapeToken.position - 1, `expected a single character after ESCAPE, found ${describeToken(escapeToken)}`);
      }
    }
    return compileLikePattern(pattern.value, escape);
  }

  private inList(): Set<string> {
    this.expectSymbol('(', '"(" after IN');
    const values = new Set<string>([this.expectString('a string literal in the IN list').value]);
    while (this.acceptSymbol(',')) {
      values.add(this.expectString('a string literal after ","').value);
    }
    this.expectSymbol(')', '"," or ")" in the IN list');
    return values;
  }

  private additive(): SelectorNode {
    return this.arithmetic(['+', '-'], () => this.multiplicative());
  }

  private multiplicative(): SelectorNode {
    return this.arithmetic(['*', '/'], () => this.unary());
  }

  private arithmetic(operators: readonly string[], operand: () => SelectorNode): SelectorNode {
    const start = this.peek();
    let left = operand();
    for (let token = this.peek(); token.kind === 'symbol' && operators.includes(token.text); token = this.peek()) {
      this.requireNumber(left, start, `before "${token.text}"`);
      this.next++;
      const right = this.numberOperand(`after "${token.text}"`, operand);
      left = { type: 'arithmetic', operator: token.text as ArithmeticOperator, left, right };
    }
    return left;
  }

  private unary(): SelectorNode {
    const token = this.peek();
    if (token.kind === 'symbol' && (token.text === '+' || token.text === '-')) {
      this.next++;
      const operator = token.text;
      return this.nested(() => ({ type: 'unary', operator, operand: this.numberOperand(`after "${operator}"`, () => this.unary()) }));
    }
    return this.primary();
  }

  private primary(): SelectorNode {
    const token = this.peek();
    this.next++;
    switch (token.kind) {
      case 'number':
      case 'string':
        return { type: 'literal', value: token.value };
      case 'identifier':
        return { type: 'identifier', name: token.text };
      case 'keyword':
        if (token.keyword === 'TRUE' || token.keyword === 'FALSE') {
          return { type: 'literal', value: token.keyword === 'TRUE' };
        }
        if (token.keyword === 'NULL') {
          throw selectorError(token.position - 1, 'NULL is only allowed in "IS NULL" and "IS NOT NULL"');
        }
        break;
      case 'symbol':
        if (token.text === '(') {
          const inner = this.nested(() => this.or());
          this.expectSymbol(')', '")"');
          return inner;
        }
        break;
    }
    const previous = this.tokens[this.next - 2];
    throw this.expected(token, previous ? `a value after "${previous.text}"` : 'an expression');
  }

  private numberOperand(where: string, operand: () => SelectorNode = () => this.additive()): SelectorNode {
    const start = this.peek();
    const node = operand();
    this.requireNumber(node, start, where);
    return node;
  }

  private condition(operand: () => SelectorNode): SelectorNode {
    const start = this.peek();
    const node = operand();
    this.requireCondition(node, start);
    return node;
  }

  private requireCondition(node: SelectorNode, start: SelectorToken): void {
    const type = staticType(node);
    if (type !== 'boolean' && type !== 'unknown') {
      throw this.expected(start, CONDITION, `a ${type} expression`);
    }
  }

  private requireNumber(node: SelectorNode, start: SelectorToken, where: string): void {
    const type = staticType(node);
    if (type !== 'number' && type !== 'unknown') {
      throw this.expected(start, `a number ${where}`, `a ${type} expression`);
    }
  }

  private requireIdentifier(node: SelectorNode, start: SelectorToken, predicate: string): void {
    if (node.type !== 'identifier') {
      throw this.expected(start, `an identifier before ${predicate}`, `a ${staticType(node)} expression`);
    }
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > this.maxDepth) {
      throw selectorError(this.tokens[this.next - 1].position - 1, `the expression nests deeper than ${this.maxDepth} levels`);
    }
    const result = parse();
    this.depth--;
    return result;
  }
}
