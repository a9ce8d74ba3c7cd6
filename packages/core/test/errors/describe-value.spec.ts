import { DESCRIBED_VALUE_MAX_LENGTH, describeValue } from '../../src/errors/describe-value';

describe('describeValue', () => {
  it('JSON-quotes strings so control characters and NUL are visible', () => {
    expect(describeValue('a\u0000b\nc')).toBe('"a\\u0000b\\nc"');
    expect(describeValue('')).toBe('""');
    expect(describeValue(' x ')).toBe('" x "');
  });

  it('truncates long strings and says how long they were', () => {
    const long = 'x'.repeat(DESCRIBED_VALUE_MAX_LENGTH + 50);

    expect(describeValue(long)).toBe(`"${'x'.repeat(DESCRIBED_VALUE_MAX_LENGTH)}"… (${DESCRIBED_VALUE_MAX_LENGTH + 50} characters)`);
  });

  it('keeps a string of exactly the maximum length whole', () => {
    const exact = 'y'.repeat(DESCRIBED_VALUE_MAX_LENGTH);

    expect(describeValue(exact)).toBe(`"${exact}"`);
  });

  it.each([
    [undefined, 'undefined'],
    [null, 'null'],
    [42, '42'],
    [NaN, 'NaN'],
    [true, 'true'],
    [10n, '10'],
    [Symbol('s'), 'Symbol(s)'],
    [() => 1, 'a function'],
    [{ a: 1 }, '{"a":1}'],
    [[1, 'x'], '[1,"x"]'],
  ])('renders %p as %s', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });

  it('truncates long objects', () => {
    const described = describeValue({ list: Array.from({ length: 100 }, (_, i) => i) });

    expect(described).toHaveLength(DESCRIBED_VALUE_MAX_LENGTH + 1);
    expect(described.endsWith('…')).toBe(true);
  });

  it('falls back to the kind of value when it cannot be serialised', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;

    expect(describeValue(circular)).toBe('an object');
    expect(describeValue([1n])).toBe('an array');
  });
});
