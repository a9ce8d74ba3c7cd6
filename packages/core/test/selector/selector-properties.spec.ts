import fc from 'fast-check';
import { InvalidSelectorError } from '../../src/errors/invalid-selector-error';
import type { HeaderValue, MessageHeaders } from '../../src/message';
import { parseSelector } from '../../src/selector/parse-selector';

type Truth = boolean | null;
type Atom = { kind: 'atom'; text: string; truth: (headers: MessageHeaders) => Truth };
type Expr = Atom | { kind: 'not'; operand: Expr } | { kind: 'and' | 'or'; left: Expr; right: Expr };

const NAMES = ['a', 'b', 'c'] as const;
const value = (headers: MessageHeaders, name: string): HeaderValue | undefined =>
  Object.hasOwn(headers, name) ? headers[name] : undefined;

// Atoms with an independent reference: NULL (missing) → UNKNOWN, another type → FALSE, a non-boolean condition → UNKNOWN.
const atom: fc.Arbitrary<Atom> = fc.oneof(
  fc.record({ name: fc.constantFrom(...NAMES), n: fc.integer({ min: 0, max: 3 }) }).map(({ name, n }) => ({
    kind: 'atom' as const,
    text: `${name} = ${n}`,
    truth: (h: MessageHeaders) => {
      const v = value(h, name);
      return v === undefined ? null : typeof v === 'number' ? v === n : false;
    },
  })),
  fc.record({ name: fc.constantFrom(...NAMES), n: fc.integer({ min: 0, max: 3 }) }).map(({ name, n }) => ({
    kind: 'atom' as const,
    text: `${name} > ${n}`,
    truth: (h: MessageHeaders) => {
      const v = value(h, name);
      return v === undefined ? null : typeof v === 'number' ? v > n : false;
    },
  })),
  fc.constantFrom(...NAMES).map((name) => ({
    kind: 'atom' as const,
    text: `${name} IS NULL`,
    truth: (h: MessageHeaders) => value(h, name) === undefined,
  })),
  fc.constantFrom(...NAMES).map((name) => ({
    kind: 'atom' as const,
    text: name,
    truth: (h: MessageHeaders) => {
      const v = value(h, name);
      return typeof v === 'boolean' ? v : null;
    },
  })),
  fc.constantFrom(true, false).map((b) => ({ kind: 'atom' as const, text: b ? 'TRUE' : 'false', truth: () => b })),
);

const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    tie('expr').map((operand) => ({ kind: 'not' as const, operand })),
    fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), left: tie('expr'), right: tie('expr') }),
  ),
}));

const headerValue: fc.Arbitrary<HeaderValue> = fc.oneof(fc.integer({ min: 0, max: 4 }), fc.boolean(), fc.constantFrom('x', '1'));
const headers: fc.Arbitrary<MessageHeaders> = fc.record({ a: headerValue, b: headerValue, c: headerValue }, { requiredKeys: [] });

function text(e: Expr): string {
  switch (e.kind) {
    case 'atom':
      return e.text;
    case 'not':
      return `NOT (${text(e.operand)})`;
    default:
      return `(${text(e.left)}) ${e.kind.toUpperCase()} (${text(e.right)})`;
  }
}

// The JMS spec's truth tables, written out.
const NOT_TABLE = new Map<Truth, Truth>([
  [true, false],
  [false, true],
  [null, null],
]);
function reference(e: Expr, h: MessageHeaders): Truth {
  switch (e.kind) {
    case 'atom':
      return e.truth(h);
    case 'not':
      return NOT_TABLE.get(reference(e.operand, h)) as Truth;
    case 'and': {
      const [l, r] = [reference(e.left, h), reference(e.right, h)];
      return l === false || r === false ? false : l === null || r === null ? null : true;
    }
    case 'or': {
      const [l, r] = [reference(e.left, h), reference(e.right, h)];
      return l === true || r === true ? true : l === null || r === null ? null : false;
    }
  }
}

describe('selector properties', () => {
  it('AND, OR and NOT agree with a reference three-valued implementation on random headers', () => {
    fc.assert(
      fc.property(expr, headers, (e, h) => {
        expect(parseSelector(text(e)).matches(h)).toBe(reference(e, h) === true);
      }),
      { numRuns: 500 },
    );
  });

  it('NOT (e) matches exactly when e is FALSE, not UNKNOWN', () => {
    fc.assert(
      fc.property(expr, headers, (e, h) => {
        expect(parseSelector(`NOT (${text(e)})`).matches(h)).toBe(reference(e, h) === false);
      }),
      { numRuns: 500 },
    );
  });

  it('writing AND and OR without parentheses follows NOT > AND > OR', () => {
    fc.assert(
      fc.property(atom, atom, atom, headers, (x, y, z, h) => {
        const [a, b, c] = [x.truth(h), y.truth(h), z.truth(h)];
        const and = (l: Truth, r: Truth): Truth => (l === false || r === false ? false : l === null || r === null ? null : true);
        const or = (l: Truth, r: Truth): Truth => (l === true || r === true ? true : l === null || r === null ? null : false);
        expect(parseSelector(`${x.text} OR ${y.text} AND ${z.text}`).matches(h)).toBe(or(a, and(b, c)) === true);
        expect(parseSelector(`NOT ${x.text} AND ${y.text}`).matches(h)).toBe(and(NOT_TABLE.get(a) as Truth, b) === true);
      }),
    );
  });

  it('LIKE agrees with a naive regular expression', () => {
    const pattern = fc.array(fc.constantFrom('a', 'b', '%', '_'), { maxLength: 8 }).map((chars) => chars.join(''));
    const subject = fc.array(fc.constantFrom('a', 'b'), { maxLength: 8 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(pattern, subject, (p, s) => {
        const naive = new RegExp(`^${p.replaceAll('%', '.*').replaceAll('_', '.')}$`);
        expect(parseSelector(`x LIKE '${p}'`).matches({ x: s })).toBe(naive.test(s));
      }),
      { numRuns: 500 },
    );
  });

  it('throws nothing but InvalidSelectorError on arbitrary input', () => {
    const fragment = fc.constantFrom(
      ...['a', 'b', '1', '2.5', '1E3', "'s'", "''", "'", '(', ')', ',', '=', '<>', '<', '>=', '+', '-', '*', '/'],
      ...['NOT', 'AND', 'OR', 'BETWEEN', 'LIKE', 'IN', 'IS', 'NULL', 'TRUE', 'ESCAPE', '%', '#', '.'],
    );
    const input = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(' ')),
    );
    fc.assert(
      fc.property(input, headers, (selector, h) => {
        try {
          // A selector that parses must also evaluate without throwing.
          expect(typeof parseSelector(selector).matches(h)).toBe('boolean');
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidSelectorError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
