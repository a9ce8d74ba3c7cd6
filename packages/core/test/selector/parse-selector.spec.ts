import { InvalidSelectorError } from '../../src/errors/invalid-selector-error';
import type { MessageHeaders } from '../../src/message';
import { MAX_SELECTOR_DEPTH, MAX_SELECTOR_LENGTH, parseSelector } from '../../src/selector/parse-selector';

const H: MessageHeaders = { color: 'red', size: 'L', price: 10, qty: 3, ratio: 0.5, vip: true, off: false, note: "it's", path: 'a%b_c' };

describe('parseSelector', () => {
  describe('matches only when the expression is TRUE', () => {
    it.each<[string, MessageHeaders, boolean]>([
      // comparisons and typing
      ["color = 'red'", H, true],
      ["color = 'blue'", H, false],
      ["color <> 'blue'", H, true],
      ["color = 'RED'", H, false],
      ['price = 10', H, true],
      ['price = 10.0', H, true],
      ['price > 9.5', H, true],
      ['price >= 10', H, true],
      ['price < 10', H, false],
      ['price <= 10', H, true],
      ['price <> 10', H, false],
      ['ratio = 5E-1', H, true],
      ['ratio < .6', H, true],
      ['price = 1E1', H, true],
      ['price = 7.', { price: 7 }, true],
      ['vip = TRUE', H, true],
      ['vip', H, true],
      ['off', H, false],
      ['NOT off', H, true],
      ['vip <> off', H, true],
      ['vip = false', H, false],
      ['TRUE', {}, true],
      ['FALSE', {}, false],
      ['color', H, false],
      ['price', H, false],
      ['NOT color', H, false],
      // different types never compare equal (FALSE, not UNKNOWN, per the spec)
      ["price = '10'", H, false],
      ["NOT (price = '10')", H, true],
      ['vip = 1', H, false],
      ['color > size', H, false],
      ['NOT (color > size)', H, true],
      ['vip > off', H, false],
      ['color = size', { color: 'L', size: 'L' }, true],
      // arithmetic
      ['price + qty = 13', H, true],
      ['price - qty * 2 = 4', H, true],
      ['(price - qty) * 2 = 14', H, true],
      ['price / 4 = 2.5', H, true],
      ['-price = -10', H, true],
      ['- -price = 10', H, true],
      ['+price = 10', H, true],
      ['price * -1 < 0', H, true],
      ['-5 + 2 = -3', {}, true],
      ['2 + 3 * 4 = 14', {}, true],
      ['10 - 4 - 3 = 3', {}, true],
      ['24 / 4 / 2 = 3', {}, true],
      ['price / 0 > 0', H, false],
      ['NOT (price / 0 > 0)', H, false],
      ['color + 1 = 1', H, false],
      ['-color = 1', H, false],
      ['missing + 1 = 1', {}, false],
      ['NOT (missing + 1 = 1)', {}, false],
      // NULL and three-valued logic
      ['missing = 1', {}, false],
      ['NOT (missing = 1)', {}, false],
      ['missing IS NULL', {}, true],
      ['missing IS NOT NULL', {}, false],
      ['color IS NULL', H, false],
      ['color IS NOT NULL', H, true],
      ['missing = 1 OR TRUE', {}, true],
      ['missing = 1 OR FALSE', {}, false],
      ['NOT (missing = 1 OR FALSE)', {}, false],
      ['missing = 1 AND FALSE', {}, false],
      ['NOT (missing = 1 AND FALSE)', {}, true],
      ['NOT (missing = 1 AND TRUE)', {}, false],
      ['missing', {}, false],
      ['NOT missing', {}, false],
      ['toString IS NULL', {}, true],
      ['constructor IS NULL', {}, true],
      // precedence: NOT > AND > OR
      ['TRUE OR TRUE AND FALSE', {}, true],
      ['(TRUE OR TRUE) AND FALSE', {}, false],
      ['NOT FALSE AND FALSE', {}, false],
      ['NOT (FALSE AND FALSE)', {}, true],
      ['FALSE AND FALSE OR TRUE', {}, true],
      ['NOT TRUE OR TRUE', {}, true],
      ['NOT NOT TRUE', {}, true],
      ['NOT price = 10', H, false],
      ['NOT price > 20 AND vip', H, true],
      ['(price + 1) * 2 = 22', H, true],
      ['vip = (price > 5)', H, true],
      ["'a' = 1", {}, false],
      ["color = 'red' AND price > 5 OR qty > 100", H, true],
      ["color = 'blue' AND (price > 5 OR qty < 100)", H, false],
      // BETWEEN
      ['price BETWEEN 5 AND 10', H, true],
      ['price BETWEEN 10 AND 10', H, true],
      ['price BETWEEN 11 AND 20', H, false],
      ['price NOT BETWEEN 11 AND 20', H, true],
      ['price NOT BETWEEN 5 AND 15', H, false],
      ['price BETWEEN qty AND qty * 4', H, true],
      ['missing BETWEEN 1 AND 2', {}, false],
      ['missing NOT BETWEEN 1 AND 2', {}, false],
      ['price BETWEEN missing AND 5', H, false],
      ['NOT (price BETWEEN missing AND 5)', H, true],
      ['color BETWEEN 1 AND 2', H, false],
      ['price BETWEEN 1 AND 20 AND vip', H, true],
      // IN
      ["color IN ('red', 'green')", H, true],
      ["color IN ('blue')", H, false],
      ["color NOT IN ('blue', 'green')", H, true],
      ["color NOT IN ('red')", H, false],
      ["missing IN ('a')", {}, false],
      ["missing NOT IN ('a')", {}, false],
      ["price IN ('10')", H, false],
      ["note IN ('it''s')", H, true],
      // LIKE
      ["color LIKE 'r%'", H, true],
      ["color LIKE 'r_d'", H, true],
      ["color LIKE 'r_'", H, false],
      ["color LIKE '%'", H, true],
      ["color LIKE '%e%'", H, true],
      ["color LIKE 'R%'", H, false],
      ["color NOT LIKE 'b%'", H, true],
      ["color NOT LIKE '%d'", H, false],
      ["path LIKE 'a\\%b\\_c' ESCAPE '\\'", H, true],
      ["path LIKE 'a!%b!_c' ESCAPE '!'", H, true],
      ["path LIKE 'a!%bxc' ESCAPE '!'", H, false],
      ["path LIKE 'a!_%' ESCAPE '!'", H, false],
      ["path LIKE 'a%'", H, true],
      ["path LIKE 'a%%b%_c' ESCAPE '%'", H, true],
      ["path LIKE 'a%%b%_x' ESCAPE '%'", H, false],
      ["path LIKE '.*'", H, false],
      ["x LIKE '(a|b)+[x]'", { x: '(a|b)+[x]' }, true],
      ["x LIKE '_'", { x: '😀' }, true],
      ["x LIKE '%\n%'", { x: 'a\nb' }, true],
      ["missing LIKE '%'", {}, false],
      ["missing NOT LIKE '%'", {}, false],
      ["price LIKE '1%'", H, false],
      ["note LIKE 'it''_'", H, true],
      // case-insensitive keywords, case-sensitive identifiers
      ["color in ('red') and price between 1 and 10 or false", H, true],
      ['Not vip', H, false],
      ['missing is null', {}, true],
      ["color LiKe 'r%' EsCaPe '!'", H, true],
      ["Color = 'red'", H, false],
      ['vip = true', H, true],
      // identifiers follow Java rules
      ['$x = 1 AND _y = 2 AND z9 = 3', { $x: 1, _y: 2, z9: 3 }, true],
      ["ünïcode = 'ok'", { ünïcode: 'ok' }, true],
      // strings
      ["note = 'it''s'", H, true],
      ["'' = ''", {}, true],
      ["'a' = 'a'", {}, true],
      ["'a' <> 'b'", {}, true],
      ["x = '%_'", { x: '%_' }, true],
      // whitespace
      ['  price\t=\n10  ', H, true],
      ['price=10AND vip', H, true],
    ])('%p with %j → %p', (text, headers, expected) => {
      expect(parseSelector(text).matches(headers)).toBe(expected);
    });
  });

  it('keeps the text as given', () => {
    expect(parseSelector(" color = 'red' ").text).toBe(" color = 'red' ");
  });

  describe('rejects invalid selectors with the position and what was expected', () => {
    it.each<[string, number, RegExp]>([
      ['', 1, /expected a value|expected an expression/],
      ['   ', 4, /found end of input/],
      ['color =', 8, /expected a value after "=", found end of input/],
      ['color = = 1', 9, /expected a value after "="/],
      ["color = 'red", 9, /unterminated string/],
      ['price > ', 9, /found end of input/],
      ['10', 1, /expected a condition .*found a number expression/],
      ["'red'", 1, /found a string expression/],
      ['price + 1', 1, /found a number expression/],
      ['1 AND vip', 1, /expected a condition/],
      ['vip OR 2', 8, /expected a condition/],
      ['NOT 3', 5, /expected a condition/],
      ["'a' < 'b'", 1, /expected a number before "<", found a string expression/],
      ["price > 'a'", 9, /expected a number after ">", found a string expression/],
      ['TRUE >= FALSE', 1, /expected a number/],
      ["price + 'a' = 1", 9, /expected a number after "\+"/],
      ["'a' * 2 = 1", 1, /expected a number before "\*"/],
      ["-'a' = 1", 2, /expected a number after "-"/],
      ["price BETWEEN 'a' AND 2", 15, /expected a number after BETWEEN/],
      ['price BETWEEN 1 OR 2', 17, /expected AND between the bounds/],
      ["price IN ('1', 2)", 16, /expected a string literal after ","/],
      ['color IN ()', 11, /expected a string literal in the IN list/],
      ["color IN 'red'", 10, /expected "\(" after IN/],
      ["color IN ('red'", 16, /expected "," or "\)"/],
      ["1 IN ('1')", 1, /expected an identifier before IN/],
      ["'a' LIKE 'a'", 1, /expected an identifier before LIKE/],
      ['(price / 0) IS NULL', 1, /expected an identifier before IS NULL/],
      ['color LIKE 1', 12, /expected a string pattern after LIKE/],
      ["color LIKE 'a' ESCAPE 'ab'", 23, /single character after ESCAPE/],
      ['color IS 1', 10, /expected NULL or NOT NULL after "IS"/],
      ['color IS NOT 1', 14, /expected NULL after "IS NOT"/],
      ['color NOT 1', 11, /expected BETWEEN, LIKE or IN after "NOT"/],
      ['color = NULL', 9, /NULL is only allowed in "IS NULL"/],
      ['(vip', 5, /expected "\)", found end of input/],
      ['vip)', 4, /expected a matching "\(" before "\)"/],
      ['vip vip', 5, /expected AND, OR or end of input, found the identifier "vip"/],
      ['price = 1 = 1', 11, /expected AND, OR or end of input, found "="/],
      ['price # 1', 7, /unexpected character "#"/],
      ['price == 1', 8, /expected a value after "="/],
      ['AND = 1', 1, /expected a value, found AND|expected an expression, found AND/],
      ['between = 1', 1, /found BETWEEN/],
      ['price = 99999999999999999999', 9, /out of range/],
      ['price = 1E999', 9, /out of range/],
      ['price = 1.2.3', 12, /expected AND, OR or end of input/],
      ['price = .', 9, /unexpected character "\."/],
      ['vip AND', 8, /expected a value after "AND", found end of input/],
      ['vip OR OR vip', 8, /expected a value after "OR", found OR/],
    ])('%p at position %p', (text, position, message) => {
      const error = catchError(() => parseSelector(text));
      expect(error).toBeInstanceOf(InvalidSelectorError);
      expect(error).toMatchObject({ position });
      expect((error as Error).message).toMatch(new RegExp(`^Invalid selector at position ${position}: `));
      expect((error as Error).message).toMatch(message);
    });
  });

  describe('limits', () => {
    it(`accepts ${MAX_SELECTOR_LENGTH} characters and rejects one more`, () => {
      const atLimit = 'vip' + ' '.repeat(MAX_SELECTOR_LENGTH - 3);
      expect(parseSelector(atLimit).matches(H)).toBe(true);
      expect(catchError(() => parseSelector(atLimit + ' '))).toMatchObject({ position: MAX_SELECTOR_LENGTH + 1 });
    });

    it(`accepts nesting ${MAX_SELECTOR_DEPTH} deep and rejects one more`, () => {
      const nest = (depth: number): string => '('.repeat(depth) + 'vip' + ')'.repeat(depth);
      expect(parseSelector(nest(MAX_SELECTOR_DEPTH)).matches(H)).toBe(true);
      const error = catchError(() => parseSelector(nest(MAX_SELECTOR_DEPTH + 1)));
      expect(error).toBeInstanceOf(InvalidSelectorError);
      expect(error).toMatchObject({ position: MAX_SELECTOR_DEPTH + 1 });
      expect(catchError(() => parseSelector('NOT '.repeat(MAX_SELECTOR_DEPTH + 1) + 'vip'))).toBeInstanceOf(InvalidSelectorError);
      expect(catchError(() => parseSelector('-'.repeat(MAX_SELECTOR_DEPTH + 1) + '1 = 1'))).toBeInstanceOf(InvalidSelectorError);
    });

    it('evaluates the longest flat chains without exhausting the stack', () => {
      const sum = '1' + '+1'.repeat((MAX_SELECTOR_LENGTH - 10) / 2);
      expect(parseSelector(`${sum} > 0`).matches({})).toBe(true);
      const conjunction = 'vip' + ' AND vip'.repeat((MAX_SELECTOR_LENGTH - 3) / 8 - 1);
      expect(parseSelector(conjunction).matches(H)).toBe(true);
    });

    it('matches LIKE patterns full of wildcards in linear-ish time', () => {
      const pattern = '%a'.repeat(500) + '%b';
      const selector = parseSelector(`x LIKE '${pattern}'`);
      const started = performance.now();
      expect(selector.matches({ x: 'a'.repeat(4000) })).toBe(false);
      expect(performance.now() - started).toBeLessThan(2000);
    });
  });
});

function catchError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
