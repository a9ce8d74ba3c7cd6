import type { MessageHeaders } from '../message';
import type { ComparisonOperator, SelectorNode, SelectorValue } from './selector-ast';

/** SQL's three truth values: `null` is UNKNOWN. */
export type Truth = boolean | null;

/**
 * Evaluates an expression against one message's headers with JMS's three-valued logic. A missing header is
 * NULL; NULL propagates through arithmetic and makes comparisons UNKNOWN; comparing values of different
 * types (or strings and booleans with `<`, `>`, …) is FALSE, as the JMS spec says. Never throws.
 */
export function evaluateSelector(node: SelectorNode, headers: Readonly<MessageHeaders>): SelectorValue {
  switch (node.type) {
    case 'literal':
      return node.value;
    case 'identifier':
      // Own properties only: `toString` or `constructor` must be NULL, not Object.prototype's functions.
      return Object.hasOwn(headers, node.name) ? headers[node.name] : null;
    case 'and':
      return andTruth(node.operands.map((operand) => () => truth(evaluateSelector(operand, headers))));
    case 'or':
      return notTruth(andTruth(node.operands.map((operand) => () => notTruth(truth(evaluateSelector(operand, headers))))));
    case 'not':
      return notTruth(truth(evaluateSelector(node.operand, headers)));
    case 'unary': {
      const value = evaluateSelector(node.operand, headers);
      return typeof value !== 'number' ? null : node.operator === '-' ? -value : value;
    }
    case 'arithmetic':
      return arithmetic(node.operator, evaluateSelector(node.left, headers), evaluateSelector(node.right, headers));
    case 'comparison':
      return compare(node.operator, evaluateSelector(node.left, headers), evaluateSelector(node.right, headers));
    case 'between': {
      const value = evaluateSelector(node.operand, headers);
      const low = evaluateSelector(node.low, headers);
      const high = evaluateSelector(node.high, headers);
      // The spec defines BETWEEN by these equivalences, which also fix its NULL behaviour.
      return node.negated
        ? notTruth(andTruth([() => notTruth(compare('<', value, low)), () => notTruth(compare('>', value, high))]))
        : andTruth([() => compare('>=', value, low), () => compare('<=', value, high)]);
    }
    case 'in':
    case 'like':
    case 'isNull': {
      const value = evaluateSelector(node.operand, headers);
      if (node.type === 'isNull') {
        return (value === null) !== node.negated;
      }
      if (value === null) {
        return null;
      }
      const found = typeof value === 'string' && (node.type === 'in' ? node.values.has(value) : node.pattern.matches(value));
      return found !== node.negated;
    }
  }
}

/** A value used as a condition: only booleans are truth values; anything else is UNKNOWN. */
export function truth(value: SelectorValue): Truth {
  return typeof value === 'boolean' ? value : null;
}

export function notTruth(value: Truth): Truth {
  return value === null ? null : !value;
}

/** AND over lazily evaluated operands: FALSE wins (and stops evaluation), then UNKNOWN, else TRUE. */
function andTruth(operands: ReadonlyArray<() => Truth>): Truth {
  let result: Truth = true;
  for (const operand of operands) {
    const value = operand();
    if (value === false) {
      return false;
    }
    if (value === null) {
      result = null;
    }
  }
  return result;
}

function arithmetic(operator: string, left: SelectorValue, right: SelectorValue): number | null {
  if (typeof left !== 'number' || typeof right !== 'number') {
    return null;
  }
  const result = operator === '+' ? left + right : operator === '-' ? left - right : operator === '*' ? left * right : left / right;
  // Division by zero and overflow have no SQL value: NULL, so that any comparison with them is UNKNOWN.
  return Number.isFinite(result) ? result : null;
}

function compare(operator: ComparisonOperator, left: SelectorValue, right: SelectorValue): Truth {
  if (left === null || right === null) {
    return null;
  }
  if (typeof left !== typeof right) {
    return false;
  }
  if (operator === '=' || operator === '<>') {
    return (left === right) === (operator === '=');
  }
  if (typeof left !== 'number' || typeof right !== 'number') {
    return false;
  }
  switch (operator) {
    case '<':
      return left < right;
    case '<=':
      return left <= right;
    case '>':
      return left > right;
    case '>=':
      return left >= right;
  }
}
