import fc from 'fast-check';
import type { MessageHeaders } from '../../src/message';
import { parseSelector } from '../../src/selector/parse-selector';

// The headers of ActiveMQ's SelectorTest (and Artemis's), whose LIKE cases these are.
const ACTIVEMQ: MessageHeaders = {
  foo: '_foo',
  quote: "'In God We Trust'",
  endingUnderScore: 'XD7xlJIQn_',
  punctuation: '!#$&()*+,-./:;<=>?@[\\]^`{|}~',
};

describe('LIKE', () => {
  describe('escapes as ActiveMQ does: only %, _ and the escape character itself; elsewhere it stands for itself', () => {
    it.each<[string, MessageHeaders, boolean]>([
      // ActiveMQ SelectorTest.testSpecialEscapeLiteral
      ["foo LIKE '%_%' ESCAPE '%'", ACTIVEMQ, true],
      ["endingUnderScore LIKE '_D7xlJIQn$_' ESCAPE '$'", ACTIVEMQ, true],
      ["endingUnderScore LIKE '_D7xlJIQn__' ESCAPE '_'", ACTIVEMQ, true],
      ["endingUnderScore LIKE '%D7xlJIQn%_' ESCAPE '%'", ACTIVEMQ, true],
      ["endingUnderScore LIKE '%D7xlJIQn%'  ESCAPE '%'", ACTIVEMQ, true],
      ["endingUnderScore LIKE '%D7xlJIQn%%'  ESCAPE '%'", ACTIVEMQ, false],
      ["endingUnderScore LIKE '_D7xlJIQn\\_' ESCAPE '\\'", ACTIVEMQ, true],
      ["endingUnderScore LIKE '%D7xlJIQn\\_' ESCAPE '\\'", ACTIVEMQ, true],
      // ActiveMQ SelectorTest.testLikeComparisons
      ["quote LIKE '''In G_d We Trust'''", ACTIVEMQ, true],
      ["quote LIKE '''In Gd_ We Trust'''", ACTIVEMQ, false],
      ["foo LIKE '!_%' ESCAPE '!'", ACTIVEMQ, true],
      ["quote LIKE '!_%' ESCAPE '!'", ACTIVEMQ, false],
      ["foo NOT LIKE '!_%' ESCAPE '!'", ACTIVEMQ, false],
      ["punctuation LIKE '!#$&()*+,-./:;<=>?@[\\]^`{|}~'", ACTIVEMQ, true],
      // '%_%' ESCAPE '%' is a literal '_' then any sequence: the trailing '%' has nothing to escape.
      ["foo LIKE '%_%' ESCAPE '%'", { foo: '_' }, true],
      ["foo LIKE '%_%' ESCAPE '%'", { foo: 'foo' }, false],
      ["foo LIKE '%_%' ESCAPE '%'", { foo: 'x_foo' }, false],
      // '%%' is a literal '%'; a lone '%' (before an ordinary character or at the end) is still the wildcard.
      ["x LIKE '%%' ESCAPE '%'", { x: '%' }, true],
      ["x LIKE '%%' ESCAPE '%'", { x: '' }, false],
      ["x LIKE '%%%' ESCAPE '%'", { x: '%anything' }, true],
      ["x LIKE '%a' ESCAPE '%'", { x: 'bba' }, true],
      // the same for '_' as the escape character
      ["x LIKE '__' ESCAPE '_'", { x: '_' }, true],
      ["x LIKE '__' ESCAPE '_'", { x: 'a' }, false],
      ["x LIKE '_%' ESCAPE '_'", { x: '%' }, true],
      ["x LIKE '_%' ESCAPE '_'", { x: 'a%' }, false],
      ["x LIKE '_a' ESCAPE '_'", { x: 'za' }, true],
      // an ordinary escape character before an ordinary character or at the end is itself
      ["x LIKE 'a!b' ESCAPE '!'", { x: 'a!b' }, true],
      ["x LIKE 'a!b' ESCAPE '!'", { x: 'ab' }, false],
      ["x LIKE 'a!' ESCAPE '!'", { x: 'a!' }, true],
      ["x LIKE 'a!!' ESCAPE '!'", { x: 'a!' }, true],
      ["x LIKE 'a!!!%' ESCAPE '!'", { x: 'a!%' }, true],
      ["x LIKE 'a!!!%' ESCAPE '!'", { x: 'a!b' }, false],
      ["x LIKE '😀_' ESCAPE '😀'", { x: '_' }, true],
    ])('%p with %j → %p', (text, headers, expected) => {
      expect(parseSelector(text).matches(headers)).toBe(expected);
    });
  });

  // An independent reference for patterns without an escape: the RegExp the pattern means (fine at these sizes).
  const reference = (pattern: string, value: string): boolean =>
    new RegExp(
      `^${Array.from(pattern)
        .map((char) => (char === '%' ? '.*' : char === '_' ? '.' : char.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')))
        .join('')}$`,
      'su',
    ).test(value);

  it('matches what the pattern means, across machine words and with frequent and rare characters', () => {
    // Long runs of few characters: segments longer than 32 and 64 items, characters seen 32 times and more.
    const pattern = fc.array(fc.constantFrom('a', 'a', 'a', 'b', '%', '_', '😀'), { maxLength: 120 }).map((chars) => chars.join(''));
    const value = fc.array(fc.constantFrom('a', 'a', 'a', 'b', '😀'), { maxLength: 160 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(pattern, value, (p, v) => parseSelector(`x LIKE '${p}'`).matches({ x: v }) === reference(p, v)),
      { numRuns: 3000 },
    );
  });

  it('finds a long run between two % anywhere in the value (runs of more than 32 and 64 items)', () => {
    const run = fc.array(fc.constantFrom('a', 'a', 'a', 'a', 'b', '_'), { minLength: 30, maxLength: 140 });
    const filler = fc.array(fc.constantFrom('a', 'a', 'b'), { maxLength: 80 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(run, filler, filler, fc.nat(), (items, before, after, flip) => {
        // The run itself in the value, its wildcards filled and one character flipped now and then: a near miss.
        const chars = items.map((char) => (char === '_' ? 'b' : char));
        if (flip % 3 === 0) chars[flip % chars.length] = chars[flip % chars.length] === 'a' ? 'b' : 'a';
        const p = `%${items.join('')}%`;
        const v = `${before}${chars.join('')}${after}`;
        return parseSelector(`x LIKE '${p}'`).matches({ x: v }) === reference(p, v);
      }),
      { numRuns: 3000 },
    );
  });

  it('matches a value built from the pattern itself', () => {
    // Random values rarely match long patterns; fill the wildcards of the pattern to get matches and near misses.
    const chars = fc.array(fc.constantFrom('a', 'b', '%', '_'), { minLength: 1, maxLength: 150 });
    fc.assert(
      fc.property(chars, fc.constantFrom('', 'b', 'ab', 'aaaa'), fc.boolean(), (items, fill, spoil) => {
        let v = items.map((char) => (char === '%' ? fill : char === '_' ? 'a' : char)).join('');
        if (spoil && v.length > 0) v = `${v.slice(0, -1)}${v.endsWith('a') ? 'b' : 'a'}`;
        const p = items.join('');
        return parseSelector(`x LIKE '${p}'`).matches({ x: v }) === reference(p, v);
      }),
      { numRuns: 3000 },
    );
  });
});
