import { InvalidMessageError } from '../src/errors/invalid-message-error';
import {
  HEADERS_MAX_COUNT,
  HEADER_NAME_MAX_LENGTH,
  HEADER_VALUE_MAX_LENGTH,
  MESSAGE_ID_MAX_LENGTH,
  assertHeaders,
  assertMessageId,
} from '../src/message';

describe('assertMessageId', () => {
  it.each(['m1', '0', 'order-42', '550e8400-e29b-41d4-a716-446655440000', '!~"#{}', 'x'.repeat(MESSAGE_ID_MAX_LENGTH)])(
    'accepts and returns %p',
    (id) => {
      expect(assertMessageId(id)).toBe(id);
    },
  );

  it.each([
    ['empty', '', 'must be non-empty printable ASCII'],
    ['space', 'a b', 'got "a b"'],
    ['tab', 'a\tb', 'got "a\\tb"'],
    ['NUL', 'a\u0000', 'got "a\\u0000"'],
    ['DEL', 'a\u007f', 'must be non-empty printable ASCII'],
    ['non-ASCII', 'é', 'got "é"'],
    ['too long', 'x'.repeat(MESSAGE_ID_MAX_LENGTH + 1), 'is too long; the maximum is 256 characters'],
  ])('rejects %s: %p', (_, id, message) => {
    expect(() => assertMessageId(id)).toThrow(InvalidMessageError);
    expect(() => assertMessageId(id)).toThrow(message);
  });

  it.each([undefined, null, 42, { id: 'x' }])('rejects the non-string %p, naming the field', (id) => {
    expect(() => assertMessageId(id)).toThrow('Message field "id" must be a string');
  });
});

describe('assertHeaders', () => {
  it('accepts and returns typed header values', () => {
    const headers = { type: 'created', priority: 5, ratio: -0.25, urgent: true, empty: '' };

    expect(assertHeaders(headers)).toBe(headers);
  });

  it('accepts empty and null-prototype objects', () => {
    expect(assertHeaders({})).toEqual({});
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    expect(assertHeaders(bare)).toBe(bare);
  });

  it('accepts the limits exactly', () => {
    const many = headersNamed(HEADERS_MAX_COUNT);
    expect(assertHeaders(many)).toBe(many);
    expect(assertHeaders({ ['n'.repeat(HEADER_NAME_MAX_LENGTH)]: 'v'.repeat(HEADER_VALUE_MAX_LENGTH) })).toBeDefined();
  });

  it.each([undefined, null, 'a=b', 1, [], [['a', 'b']], new Map([['a', 'b']]), new Date()])(
    'rejects %p, which is not a plain object',
    (headers) => {
      expect(() => assertHeaders(headers)).toThrow(InvalidMessageError);
      expect(() => assertHeaders(headers)).toThrow('Message field "headers" must be an object');
    },
  );

  it.each([
    ['too many headers', headersNamed(HEADERS_MAX_COUNT + 1), 'has 65 entries; the maximum is 64'],
    ['empty name', { '': 'x' }, 'has an empty header name'],
    ['name too long', { ['n'.repeat(HEADER_NAME_MAX_LENGTH + 1)]: 'x' }, 'which is too long; the maximum is 256'],
    ['control character in name', { 'a\nb': 'x' }, 'invalid header name "a\\nb"'],
    ['NUL in name', { 'a\u0000': 'x' }, 'invalid header name "a\\u0000"'],
    ['DEL in name', { 'a\u007f': 'x' }, 'invalid header name'],
    ['prototype key', JSON.parse('{"__proto__": "x"}') as unknown, 'invalid header name "__proto__"'],
    ['value too long', { big: 'v'.repeat(HEADER_VALUE_MAX_LENGTH + 1) }, 'Message header "big" has the value'],
    ['null value', { a: null }, 'Message header "a" must be a string, a finite number or a boolean, got null'],
    ['undefined value', { a: undefined }, 'got undefined'],
    ['object value', { a: { b: 1 } }, 'got {"b":1}'],
    ['array value', { a: ['x'] }, 'got ["x"]'],
    ['NaN value', { a: NaN }, 'got NaN'],
    ['infinite value', { a: Infinity }, 'got Infinity'],
    ['bigint value', { a: 1n }, 'got 1'],
  ])('rejects %s', (_, headers, message) => {
    expect(() => assertHeaders(headers)).toThrow(InvalidMessageError);
    expect(() => assertHeaders(headers)).toThrow(message);
  });
});

function headersNamed(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`h${i}`, i]));
}
