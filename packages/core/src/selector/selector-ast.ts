/** A value during evaluation; `null` is SQL NULL (a missing header, or arithmetic on NULL). */
export type SelectorValue = string | number | boolean | null;

export type ComparisonOperator = '=' | '<>' | '<' | '<=' | '>' | '>=';
export type ArithmeticOperator = '+' | '-' | '*' | '/';

/**
 * The parsed expression. AND and OR are n-ary so that long chains do not nest deeply; every other node
 * follows the grammar directly.
 */
export type SelectorNode =
  | { readonly type: 'literal'; readonly value: string | number | boolean }
  | { readonly type: 'identifier'; readonly name: string }
  | { readonly type: 'and' | 'or'; readonly operands: readonly SelectorNode[] }
  | { readonly type: 'not'; readonly operand: SelectorNode }
  | { readonly type: 'unary'; readonly operator: '+' | '-'; readonly operand: SelectorNode }
  | { readonly type: 'arithmetic'; readonly operator: ArithmeticOperator; readonly left: SelectorNode; readonly right: SelectorNode }
  | { readonly type: 'comparison'; readonly operator: ComparisonOperator; readonly left: SelectorNode; readonly right: SelectorNode }
  | {
      readonly type: 'between';
      readonly negated: boolean;
      readonly operand: SelectorNode;
      readonly low: SelectorNode;
      readonly high: SelectorNode;
    }
  | { readonly type: 'in'; readonly negated: boolean; readonly operand: SelectorNode; readonly values: ReadonlySet<string> }
  | { readonly type: 'like'; readonly negated: boolean; readonly operand: SelectorNode; readonly pattern: LikeMatcher }
  | { readonly type: 'isNull'; readonly negated: boolean; readonly operand: SelectorNode };

/** A precompiled LIKE pattern. */
export interface LikeMatcher {
  matches(value: string): boolean;
}

/**
 * What the parser can tell about an expression's type without headers: identifiers are `unknown` until a
 * message arrives, everything else is fixed by its syntax.
 */
export type StaticType = 'boolean' | 'number' | 'string' | 'unknown';

/** The type an expression has whatever the headers; `unknown` for identifiers (and parentheses around one). */
export function staticType(node: SelectorNode): StaticType {
  switch (node.type) {
    case 'literal':
      return typeof node.value === 'string' ? 'string' : typeof node.value === 'number' ? 'number' : 'boolean';
    case 'identifier':
      return 'unknown';
    case 'unary':
    case 'arithmetic':
      return 'number';
    default:
      return 'boolean';
  }
}
