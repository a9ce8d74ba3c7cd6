import fc from 'fast-check';
import { InvalidTopicError } from '../src/errors/invalid-topic-error';
import { RESERVED_TOPIC_PREFIX, TOPIC_NAME_MAX_LENGTH, Topic } from '../src/topic';

const segment = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
// Arbitrary unicode, plus strings from a tiny alphabet so that valid names and near misses come up too.
const anyString = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('a', '.', '/', '_') }));
const validName = fc.array(segment, { minLength: 1, maxLength: 8 }).map((segments) => segments.join('.'));

describe('Topic', () => {
  describe('accepts', () => {
    it.each(['order', 'order.created', 'payment.kakao.success', 'A-Z_09', '-', '_', '0', '__dlq.order', 'a'.repeat(TOPIC_NAME_MAX_LENGTH)])(
      '%p',
      (name) => {
        expect(new Topic(name).name).toBe(name);
        expect(Topic.of(name).name).toBe(name);
        expect(Topic.isValid(name)).toBe(true);
      },
    );
  });

  describe('rejects', () => {
    it.each([
      ['empty', ''],
      ['dot', '.'],
      ['dot-dot', '..'],
      ['parent traversal', '../x'],
      ['slash', 'a/b'],
      ['backslash', 'a\\b'],
      ['NUL', 'a\u0000b'],
      ['newline at the end', 'order\n'],
      ['space', 'order created'],
      ['empty segment', 'order..new'],
      ['trailing dot', 'order.'],
      ['leading dot', '.order'],
      ['unicode letter', 'café'],
      ['unicode look-alike dot', 'order\u2024new'],
      ['astral character', 'order.😀'],
      ['wildcard', 'order.*'],
      ['too long', 'a'.repeat(TOPIC_NAME_MAX_LENGTH + 1)],
    ])('%s: %p', (_, name) => {
      expect(() => new Topic(name)).toThrow(InvalidTopicError);
      expect(() => Topic.of(name)).toThrow(InvalidTopicError);
      expect(Topic.isValid(name)).toBe(false);
    });

    it.each([undefined, null, 42, {}, ['order'], { name: 'order' }])('the non-string %p', (name) => {
      expect(() => new Topic(name)).toThrow(InvalidTopicError);
      expect(Topic.isValid(name)).toBe(false);
    });
  });

  describe('error messages', () => {
    it.each([
      [42, 'Topic name must be a string, got 42'],
      ['', 'Topic name must not be empty'],
      ['a/b', `Topic name "a/b" contains the forbidden character "/"`],
      ['a\u0000b', 'Topic name "a\\u0000b" contains the forbidden character "\\u0000"'],
      ['x.😀', 'Topic name "x.😀" contains the forbidden character "😀"'],
      ['order..new', `Topic name "order..new" has an empty segment`],
      ['order.', `Topic name "order." has an empty segment`],
      ['a'.repeat(300), 'is too long; the maximum is 249 characters'],
    ])('for %p say what is wrong', (name, expected) => {
      expect(() => new Topic(name)).toThrow(expected);
    });

    it('truncate long offending values', () => {
      const thrown = captureError(() => new Topic(`${'a'.repeat(500)}/`));

      expect(thrown.message.length).toBeLessThan(300);
    });
  });

  it('marks names starting with the reserved prefix', () => {
    expect(RESERVED_TOPIC_PREFIX).toBe('__');
    expect(Topic.of('__dlq').isReserved).toBe(true);
    expect(Topic.of('__').isReserved).toBe(true);
    expect(Topic.of('_dlq').isReserved).toBe(false);
    expect(Topic.of('order.__dlq').isReserved).toBe(false);
  });

  it('compares by name, case-sensitively', () => {
    expect(Topic.of('order').equals(Topic.of('order'))).toBe(true);
    expect(Topic.of('order').equals(Topic.of('Order'))).toBe(false);
  });

  it('folds case so that names differing only in case collide', () => {
    expect(Topic.caseFoldKey('Order.New')).toBe(Topic.caseFoldKey('order.NEW'));
    expect(Topic.caseFoldKey('order.new')).not.toBe(Topic.caseFoldKey('order.old'));
  });

  it('renders as its name in strings and JSON', () => {
    const topic = Topic.of('order.created');

    expect(String(topic)).toBe('order.created');
    expect(`${topic}`).toBe('order.created');
    expect(JSON.stringify({ topic })).toBe('{"topic":"order.created"}');
  });

  describe('properties', () => {
    it('accepts every name built from valid segments', () => {
      fc.assert(
        fc.property(validName, (name) => {
          expect(Topic.of(name).name).toBe(name);
        }),
      );
    });

    it('throws exactly when isValid is false, for arbitrary strings', () => {
      fc.assert(
        fc.property(anyString, (name) => {
          let threw = false;
          try {
            Topic.of(name);
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidTopicError);
            threw = true;
          }
          expect(threw).toBe(!Topic.isValid(name));
        }),
      );
    });

    it('rejects any valid name with a forbidden character inserted', () => {
      const forbidden = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((character) => !/[A-Za-z0-9_.-]/.test(character));
      fc.assert(
        fc.property(validName, forbidden, fc.nat(), (name, character, at) => {
          const index = at % (name.length + 1);
          expect(Topic.isValid(name.slice(0, index) + character + name.slice(index))).toBe(false);
        }),
      );
    });

    it('rejects any valid name with an empty segment', () => {
      fc.assert(
        fc.property(validName, fc.constantFrom('.%', '%.', '%..%'), (name, shape) => {
          expect(Topic.isValid(shape.replace(/%/g, name))).toBe(false);
        }),
      );
    });

    it('case-folds case-variants of a name to the same key', () => {
      fc.assert(
        fc.property(validName, (name) => {
          expect(Topic.caseFoldKey(name.toUpperCase())).toBe(Topic.caseFoldKey(name));
        }),
      );
    });
  });
});

function captureError(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
