import fc from 'fast-check';
import { InvalidTopicPatternError } from '../src/errors/invalid-topic-pattern-error';
import { Topic } from '../src/topic';
import { MATCH_ALL_PATTERN, TOPIC_PATTERN_MAX_LENGTH, TOPIC_PATTERN_MAX_WILDCARDS, TopicPattern } from '../src/topic-pattern';

const matches = (pattern: string, topic: string): boolean => TopicPattern.of(pattern).matches(topic);

describe('TopicPattern', () => {
  // mmmq-original.md §2.1, cases asserted by the original project's tests and README.
  describe('matches like the original', () => {
    it.each([
      ['sports.*', 'sports.football', true],
      ['sports.*', 'sports.basketball', true],
      ['sports.*', 'news.politics', false],
      ['news.**', 'news', true],
      ['news.**', 'news.world.europe', true],
      ['news.**', 'sports.football', false],
      ['order.new', 'order.new', true],
      ['order.*', 'order.new', true],
      ['order.*', 'order.cancel', true],
      ['order.*', 'payment.kakao', false],
      ['order.*', 'payment.done', false],
      ['payment.kakao.*', 'payment.kakao.success', true],
      ['**', 'anything', true],
      ['**', 'any.thing.at.all', true],
    ])('%p against %p → %p', (pattern, topic, expected) => {
      expect(matches(pattern, topic)).toBe(expected);
      expect(TopicPattern.of(pattern).matches(Topic.of(topic))).toBe(expected);
    });
  });

  // mmmq-original.md §2.1, further cases computed from the original's Ant algorithm.
  describe('matches like Ant with separator "."', () => {
    it.each([
      ['order.*', 'order', false],
      ['order.*', 'order.new.x', false],
      ['order.**', 'order', true],
      ['order.**', 'order.a.b', true],
      ['*', 'order', true],
      ['*', 'order.new', false],
      ['*.new', 'order.new', true],
      ['**.new', 'order.new', true],
      ['**.new', 'a.b.new', true],
      ['a.**.z', 'a.z', true],
      ['a.**.z', 'a.b.c.z', true],
      ['a.*.z', 'a.b.z', true],
      ['a.*.z', 'a.b.c.z', false],
      ['*.*', 'order', false],
      ['ord*', 'order', true],
      ['ord*.new', 'order.new', true],
      ['order.n?w', 'order.new', true],
      ['news.**', 'newsx', false],
      ['order.new', 'Order.new', false],
    ])('%p against %p → %p', (pattern, topic, expected) => {
      expect(matches(pattern, topic)).toBe(expected);
    });
  });

  // The original's quirks come from dropping empty tokens. Here empty segments are invalid on both
  // sides instead, so `order.` and `order..new` can never be topics and `order..new` is no pattern.
  describe('decides the quirk rows of the original', () => {
    it('`order.` is not a topic, so `order.*` cannot match it', () => {
      expect(Topic.isValid('order.')).toBe(false);
      expect(matches('order.*', 'order.')).toBe(false);
    });

    it('`order..new` is not a topic, so `order.*` cannot match it', () => {
      expect(Topic.isValid('order..new')).toBe(false);
      expect(matches('order.*', 'order..new')).toBe(false);
    });

    it('`order..new` is not a pattern', () => {
      expect(() => TopicPattern.of('order..new')).toThrow(InvalidTopicPatternError);
    });
  });

  describe('globs within one segment', () => {
    it.each([
      ['*der', 'order', true],
      ['o*r', 'order', true],
      ['o*r', 'or', true],
      ['order*', 'order', true],
      ['o**r', 'order', true],
      ['o**r', 'o.r', false],
      ['*-*', 'a-b', true],
      ['*-*', 'ab', false],
      ['order?', 'order', false],
      ['?rder', 'order', true],
      ['?', 'a', true],
      ['?', 'ab', false],
      ['???', 'abc', true],
      ['a?c', 'a.c', false],
      ['*.*', 'a.b', true],
      ['*.*', 'a.b.c', false],
    ])('%p against %p → %p', (pattern, topic, expected) => {
      expect(matches(pattern, topic)).toBe(expected);
    });
  });

  describe('spans segments with **', () => {
    it.each([
      ['**.**', 'a', true],
      ['**.**', 'a.b.c', true],
      ['a.**.**.z', 'a.z', true],
      ['a.**.b.**.c', 'a.b.c', true],
      ['a.**.b.**.c', 'a.x.b.y.z.c', true],
      ['a.**.b.**.c', 'a.x.c', false],
      ['**.b.*', 'a.b.c', true],
      ['**.b.*', 'b.c', true],
      ['**.b.*', 'a.b', false],
      ['**.a.a', 'a.a.a.a', true],
      ['**.a.b', 'a.a.a.b.a.b', true],
      ['**.a.b', 'a.a.a.b.a', false],
      ['a.**', 'b', false],
      ['**.z', 'z.a', false],
    ])('%p against %p → %p', (pattern, topic, expected) => {
      expect(matches(pattern, topic)).toBe(expected);
    });
  });

  it('is case-sensitive', () => {
    expect(matches('order.new', 'order.new')).toBe(true);
    expect(matches('order.new', 'order.NEW')).toBe(false);
    expect(matches('Order.*', 'order.new')).toBe(false);
    expect(matches('ORD*', 'order')).toBe(false);
    expect(matches('o?der', 'oRder')).toBe(true);
  });

  describe('reserved topics', () => {
    it.each([
      ['**', '__dlq', false],
      ['**', '__dlq.order', false],
      ['*', '__dlq', false],
      ['*.*', '__dlq.order', false],
      ['_*', '__dlq', false],
      ['?_dlq', '__dlq', false],
      ['**.order', '__dlq.order', false],
      ['__dlq', '__dlq', true],
      ['__dlq.*', '__dlq.order', true],
      ['__dlq.**', '__dlq', true],
      ['__dlq.**', '__dlq.order.created', true],
      ['__*', '__dlq', true],
      ['__*.**', '__retry.order', true],
      ['__dlq.*', 'dlq.order', false],
    ])('%p against %p → %p: only matched when the pattern names them', (pattern, topic, expected) => {
      expect(matches(pattern, topic)).toBe(expected);
    });

    it('leaves names with a single leading underscore to everyone', () => {
      expect(matches('**', '_private')).toBe(true);
      expect(matches('*', '_private')).toBe(true);
    });

    it('does not mistake an inner __ segment for a reserved topic', () => {
      expect(matches('**', 'order.__x')).toBe(true);
    });
  });

  it('never matches strings that are not valid topics', () => {
    expect(matches('**', '')).toBe(false);
    expect(matches('**', 'a/b')).toBe(false);
    expect(matches('*', 'a b')).toBe(false);
    expect(matches('**', '.')).toBe(false);
    expect(matches('**', 'x'.repeat(300))).toBe(false);
  });

  describe('validation', () => {
    it.each(['order', '*', '**', '?', 'order.*', 'a-b_c.d?e*f', '__dlq.**', '***', 'a'.repeat(TOPIC_PATTERN_MAX_LENGTH)])(
      'accepts %p',
      (pattern) => {
        expect(TopicPattern.of(pattern).value).toBe(pattern);
        expect(new TopicPattern(pattern).value).toBe(pattern);
      },
    );

    it.each([
      ['empty', '', 'must not be blank'],
      ['blank', ' ', 'must not be blank'],
      ['whitespace only', '\t\n ', 'must not be blank'],
      ['empty inner segment', 'order..new', 'has an empty segment'],
      ['leading dot', '.order', 'has an empty segment'],
      ['trailing dot', 'order.', 'has an empty segment'],
      ['lone dot', '.', 'has an empty segment'],
      ['surrounding whitespace', ' order ', 'forbidden character " "'],
      ['slash', 'order/*', 'forbidden character "/"'],
      ['URI template variable', 'order.{x}', 'forbidden character "{"'],
      ['NUL', 'order\u0000', 'forbidden character "\\u0000"'],
      ['unicode', 'café.*', 'forbidden character "é"'],
      ['too long', 'a'.repeat(TOPIC_PATTERN_MAX_LENGTH + 1), 'too long'],
    ])('rejects %s: %p', (_, pattern, message) => {
      expect(() => new TopicPattern(pattern)).toThrow(InvalidTopicPatternError);
      expect(() => TopicPattern.of(pattern)).toThrow(message);
    });

    it.each([undefined, null, 42, {}, ['**']])('rejects the non-string %p', (pattern) => {
      expect(() => TopicPattern.of(pattern)).toThrow(InvalidTopicPatternError);
      expect(() => TopicPattern.of(pattern)).toThrow('must be a string');
    });
  });

  // Globs used to compile to backtracking regular expressions, so this pattern against
  // 100 `a`s spun forever (and again at every restart, read back from dispatchers.json).
  describe('hostile patterns', () => {
    const hundredAs = 'a'.repeat(100);

    it('refuses 40 × `a*` then `b` with a message naming the wildcard maximum', () => {
      const hostile = `${'a*'.repeat(40)}b`;

      expect(() => TopicPattern.of(hostile)).toThrow(InvalidTopicPatternError);
      expect(() => TopicPattern.of(hostile)).toThrow(
        `has 40 wildcards; the maximum is ${TOPIC_PATTERN_MAX_WILDCARDS} (each '?' and each run of '*' counts once)`,
      );
    });

    it('matches the most wildcards allowed against a long topic without backtracking', () => {
      // Without a linear matcher this call never returns: a backtracking glob tries every way to split
      // 100 `a`s among 32 stars before it gives up.
      const stars = 'a*'.repeat(TOPIC_PATTERN_MAX_WILDCARDS);

      expect(matches(`${stars}b`, hundredAs)).toBe(false);
      expect(matches(stars, hundredAs)).toBe(true);
      expect(matches(`${stars}b`, `${hundredAs}b`)).toBe(true);
      expect(matches(`${'?*'.repeat(TOPIC_PATTERN_MAX_WILDCARDS / 2)}b`, hundredAs)).toBe(false);
    });

    it('matches segment and in-segment wildcards together against a topic of many segments', () => {
      const manySegments = Array.from({ length: 30 }, () => 'aaaa').join('.');
      const pattern = `**.${'a*'.repeat(TOPIC_PATTERN_MAX_WILDCARDS - 2)}b.**`;

      expect(matches(pattern, manySegments)).toBe(false);
      expect(matches(pattern, `${manySegments}.${'a'.repeat(40)}b.aaaa`)).toBe(true);
    });

    it('counts each ? and each run of * once, and accepts exactly the maximum', () => {
      const atMaximum = Array.from({ length: TOPIC_PATTERN_MAX_WILDCARDS }, (_, i) => (i % 2 === 0 ? 'a**' : 'b?')).join('');

      expect(TopicPattern.of(atMaximum).value).toBe(atMaximum);
      expect(TopicPattern.of(`${'?'.repeat(TOPIC_PATTERN_MAX_WILDCARDS - 1)}.**`).value).toContain('?');
      expect(() => TopicPattern.of(`${atMaximum}?`)).toThrow(`the maximum is ${TOPIC_PATTERN_MAX_WILDCARDS}`);
      expect(() => TopicPattern.of(`${atMaximum}.**`)).toThrow(`has ${TOPIC_PATTERN_MAX_WILDCARDS + 1} wildcards`);
    });
  });

  it('renders as its value in strings and JSON', () => {
    const pattern = TopicPattern.of('order.*');

    expect(String(pattern)).toBe('order.*');
    expect(JSON.stringify({ pattern })).toBe('{"pattern":"order.*"}');
    expect(MATCH_ALL_PATTERN).toBe('**');
  });

  describe('properties', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/);
    const segments = fc.array(segment, { minLength: 1, maxLength: 8 });
    const userSegments = segments.filter((parts) => !parts[0].startsWith('__'));
    const reservedSegments = fc
      .tuple(fc.stringMatching(/^__[A-Za-z0-9_-]{0,6}$/), fc.array(segment, { maxLength: 6 }))
      .map(([first, rest]) => [first, ...rest]);

    it('a topic with any one segment replaced by * is matched', () => {
      fc.assert(
        fc.property(userSegments, fc.nat(), (parts, at) => {
          const index = at % parts.length;
          const pattern = parts.map((part, i) => (i === index ? '*' : part)).join('.');
          expect(matches(pattern, parts.join('.'))).toBe(true);
        }),
      );
    });

    it('a reserved topic with any but its first segment replaced by * is matched', () => {
      fc.assert(
        fc.property(reservedSegments, fc.nat(), (parts, at) => {
          fc.pre(parts.length > 1);
          const index = 1 + (at % (parts.length - 1));
          const pattern = parts.map((part, i) => (i === index ? '*' : part)).join('.');
          expect(matches(pattern, parts.join('.'))).toBe(true);
        }),
      );
    });

    it('** matches every user topic and no reserved topic', () => {
      const all = TopicPattern.of(MATCH_ALL_PATTERN);
      fc.assert(
        fc.property(userSegments, reservedSegments, (user, reserved) => {
          expect(all.matches(user.join('.'))).toBe(true);
          expect(all.matches(reserved.join('.'))).toBe(false);
        }),
      );
    });

    it('a topic with any suffix (even an empty one) replaced by ** is matched', () => {
      fc.assert(
        fc.property(userSegments, fc.nat(), (parts, at) => {
          const keep = at % (parts.length + 1);
          const pattern = [...parts.slice(0, keep), '**'].join('.');
          expect(matches(pattern, parts.join('.'))).toBe(true);
        }),
      );
    });

    it('a topic with any run of segments (even an empty one) replaced by ** is matched', () => {
      fc.assert(
        fc.property(userSegments, fc.nat(), fc.nat(), (parts, a, b) => {
          const start = a % (parts.length + 1);
          const end = start + (b % (parts.length - start + 1));
          const pattern = [...parts.slice(0, start), '**', ...parts.slice(end)].join('.');
          expect(matches(pattern, parts.join('.'))).toBe(true);
        }),
      );
    });

    it('a literal pattern matches only its own topic', () => {
      fc.assert(
        fc.property(segments, segments, (a, b) => {
          const literal = a.join('.');
          const other = b.join('.');
          expect(matches(literal, literal)).toBe(true);
          expect(matches(literal, other)).toBe(literal === other);
          expect(matches(literal, literal.toUpperCase())).toBe(literal === literal.toUpperCase());
        }),
      );
    });

    it('a topic with characters of a segment replaced by ? or a run replaced by * is matched', () => {
      fc.assert(
        fc.property(userSegments, fc.nat(), fc.nat(), fc.nat(), fc.boolean(), (parts, s, a, b, useQuestion) => {
          const index = s % parts.length;
          const part = parts[index];
          const start = a % part.length;
          const end = useQuestion ? start + 1 : start + (b % (part.length - start + 1));
          const glob = part.slice(0, start) + (useQuestion ? '?' : '*') + part.slice(end);
          const pattern = parts.map((p, i) => (i === index ? glob : p)).join('.');
          expect(matches(pattern, parts.join('.'))).toBe(true);
        }),
      );
    });

    it('globs within a segment like a straightforward recursive matcher, on random globs and segments', () => {
      // Short alphabets make matches frequent; long runs of `a` with several stars are the shape that used
      // to backtrack.
      const glob = fc.stringMatching(/^[ab*?]{1,8}$/);
      const text = fc.stringMatching(/^[ab]{1,12}$/);
      fc.assert(
        fc.property(glob, text, (pattern, topic) => {
          expect(matches(pattern, topic)).toBe(referenceMatches([pattern], [topic]));
        }),
        { numRuns: 5000 },
      );
    });

    it('agrees with a straightforward recursive matcher on random multi-segment globs and topics', () => {
      const topicSegment = fc.stringMatching(/^[ab]{1,4}$/);
      const patternSegment = fc.oneof(fc.constant('**'), fc.stringMatching(/^[ab*?]{1,4}$/));
      fc.assert(
        fc.property(
          fc.array(patternSegment, { minLength: 1, maxLength: 5 }),
          fc.array(topicSegment, { minLength: 1, maxLength: 6 }),
          (pattern, topic) => {
            expect(matches(pattern.join('.'), topic.join('.'))).toBe(referenceMatches(pattern, topic));
          },
        ),
        { numRuns: 3000 },
      );
    });

    it('agrees with a straightforward recursive matcher on random patterns and topics', () => {
      // A tiny alphabet makes matches frequent, so both outcomes are exercised.
      const topicSegment = fc.constantFrom('a', 'b', 'ab', 'ba', '__');
      const patternSegment = fc.constantFrom('a', 'b', 'ab', '*', '**', '?', 'a*', '*b', '?b', '__', '_*');
      fc.assert(
        fc.property(
          fc.array(patternSegment, { minLength: 1, maxLength: 6 }),
          fc.array(topicSegment, { minLength: 1, maxLength: 7 }),
          (pattern, topic) => {
            expect(matches(pattern.join('.'), topic.join('.'))).toBe(referenceMatches(pattern, topic));
          },
        ),
        { numRuns: 2000 },
      );
    });
  });
});

/** The semantics spelled out as directly as possible: exponential, but obviously right. */
function referenceMatches(pattern: string[], topic: string[]): boolean {
  if (topic[0].startsWith('__') && !pattern[0].startsWith('__')) {
    return false;
  }
  return matchFrom(pattern, topic);
}

function matchFrom(pattern: string[], topic: string[]): boolean {
  if (pattern.length === 0) {
    return topic.length === 0;
  }
  const [head, ...rest] = pattern;
  if (head === '**') {
    return matchFrom(rest, topic) || (topic.length > 0 && matchFrom(pattern, topic.slice(1)));
  }
  if (topic.length === 0) {
    return false;
  }
  return globFrom(head, topic[0]) && matchFrom(rest, topic.slice(1));
}

/** `*` any run of characters, `?` one character, anything else itself; topic segments never hold `.`. */
function globFrom(glob: string, text: string): boolean {
  if (glob.length === 0) {
    return text.length === 0;
  }
  if (glob[0] === '*') {
    return globFrom(glob.slice(1), text) || (text.length > 0 && globFrom(glob, text.slice(1)));
  }
  return text.length > 0 && (glob[0] === '?' || glob[0] === text[0]) && globFrom(glob.slice(1), text.slice(1));
}
