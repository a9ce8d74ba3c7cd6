import fc from 'fast-check';
import { CONSUMER_ID_MAX_LENGTH, CONSUMER_ID_PATTERN, assertConsumerId } from '../src/consumer-id';
import { InvalidConsumerIdError } from '../src/errors/invalid-consumer-id-error';

describe('assertConsumerId', () => {
  it.each(['order-created', 'a', 'A.b_c-9', '...', '.hidden', 'x'.repeat(CONSUMER_ID_MAX_LENGTH)])('accepts and returns %p', (id) => {
    expect(assertConsumerId(id)).toBe(id);
  });

  it.each([
    ['empty', '', 'is invalid'],
    ['current directory', '.', 'is invalid'],
    ['parent directory', '..', 'is invalid'],
    ['slash', 'a/b', 'Consumer id "a/b" is invalid'],
    ['backslash', 'a\\b', 'is invalid'],
    ['NUL', 'a\u0000', 'Consumer id "a\\u0000" is invalid'],
    ['trailing newline', 'a\n', 'is invalid'],
    ['space', 'a b', 'is invalid'],
    ['unicode', 'café', 'is invalid'],
    ['too long', 'x'.repeat(CONSUMER_ID_MAX_LENGTH + 1), 'is too long'],
  ])('rejects %s: %p', (_, id, message) => {
    expect(() => assertConsumerId(id)).toThrow(InvalidConsumerIdError);
    expect(() => assertConsumerId(id)).toThrow(message);
  });

  it.each([undefined, null, 1, {}, ['a']])('rejects the non-string %p', (id) => {
    expect(() => assertConsumerId(id)).toThrow('Consumer id must be a string');
  });

  it('accepts exactly the pattern, bounded, minus directory references', () => {
    // Arbitrary unicode, plus strings from a tiny alphabet so that `.`, `..` and valid ids come up too.
    const anyString = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('a', '.', '/') }));
    fc.assert(
      fc.property(anyString, (id) => {
        const valid = CONSUMER_ID_PATTERN.test(id) && id.length <= CONSUMER_ID_MAX_LENGTH && id !== '.' && id !== '..';
        if (valid) {
          expect(assertConsumerId(id)).toBe(id);
        } else {
          expect(() => assertConsumerId(id)).toThrow(InvalidConsumerIdError);
        }
      }),
    );
  });
});
