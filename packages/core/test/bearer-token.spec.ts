import { bearerAuthorization, isBearerTokenText } from '../src';

describe('bearer tokens', () => {
  it('accept printable ASCII without spaces, as an Authorization header carries it', () => {
    expect(isBearerTokenText('abc-DEF_123.~+/=')).toBe(true);
    expect(bearerAuthorization('abc')).toBe('Bearer abc');
  });

  it.each(['', 'a b', 'tab\there', 'line\nbreak', 'é', 42, undefined])('refuse %j', (value) => {
    expect(isBearerTokenText(value)).toBe(false);
  });
});
