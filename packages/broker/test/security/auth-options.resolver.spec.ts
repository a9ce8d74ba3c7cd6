import { TopicPattern } from '@mmmq/core';
import { InvalidBrokerOptionsError } from '../../src/config/invalid-broker-options.error';
import { resolveAuthOptions } from '../../src/security/auth-options.resolver';
import { tokenDigest } from '../../src/security/token-digest';

const TOKEN = 'a-token-of-24-characters';

describe('resolveAuthOptions', () => {
  it('turns authentication off without tokens', () => {
    expect(resolveAuthOptions()).toEqual({ tokens: [] });
    expect(resolveAuthOptions({ tokens: [] })).toEqual({ tokens: [] });
  });

  it('keeps each token only as its digest, with its roles, topic patterns and name', () => {
    const { tokens } = resolveAuthOptions({
      tokens: [
        { token: TOKEN, roles: ['publish', 'publish'], topics: ['order.*'], name: 'orders' },
        { token: `${TOKEN}-2`, roles: ['consume', 'admin'] },
      ],
    });
    expect(tokens).toEqual([
      { name: 'orders', digest: tokenDigest(TOKEN), roles: ['publish'], topics: [TopicPattern.of('order.*')] },
      { name: 'auth.tokens[1]', digest: tokenDigest(`${TOKEN}-2`), roles: ['consume', 'admin'], topics: undefined },
    ]);
    expect(JSON.stringify(tokens)).not.toContain(TOKEN);
  });

  it('keeps the consumer ids a consume token may act for; none given means any', () => {
    const { tokens } = resolveAuthOptions({
      tokens: [
        { token: TOKEN, roles: ['consume', 'publish'], consumers: ['billing.*', 'audit'], name: 'billing' },
        { token: `${TOKEN}-2`, roles: ['consume'] },
      ],
    });
    const [scoped, unscoped] = tokens;
    expect(String(scoped.consumers)).toBe('billing.*, audit');
    expect(['billing.invoices', 'audit', 'billing', 'billing.a.b', 'shipping'].filter((id) => scoped.consumers!.covers(id))).toEqual([
      'billing.invoices',
      'audit',
    ]);
    expect(unscoped.consumers).toBeUndefined();
  });

  it.each<[unknown, RegExp]>([
    ['tokens', /^auth must be an object \{ tokens \}$/],
    [{ token: TOKEN }, /^auth has unknown field\(s\) token; allowed are tokens$/],
    [{ tokens: {} }, /^auth\.tokens must be an array/],
    [{ tokens: [TOKEN] }, /^auth\.tokens\[0\] must be an object/],
    [{ tokens: [{ token: 'short-token', roles: ['admin'] }] }, /^auth\.tokens\[0\]\.token must be 16 to 4096 characters long, got 11$/],
    [{ tokens: [{ token: `${TOKEN} x`, roles: ['admin'] }] }, /^auth\.tokens\[0\]\.token must be a string of printable ASCII/],
    [{ tokens: [{ token: 42, roles: ['admin'] }] }, /^auth\.tokens\[0\]\.token must be a string/],
    [{ tokens: [{ token: TOKEN }] }, /^auth\.tokens\[0\]\.roles must be a non-empty array of publish, consume, admin$/],
    [{ tokens: [{ token: TOKEN, roles: [] }] }, /^auth\.tokens\[0\]\.roles must be a non-empty array/],
    [{ tokens: [{ token: TOKEN, roles: ['root'] }] }, /^auth\.tokens\[0\]\.roles holds "root"; the roles are publish, consume, admin$/],
    [
      { tokens: [{ token: TOKEN, roles: ['consume'], topics: ['a'] }] },
      /^auth\.tokens\[0\]\.topics limits publishing, but the token has neither/,
    ],
    [{ tokens: [{ token: TOKEN, roles: ['publish'], topics: [] }] }, /^auth\.tokens\[0\]\.topics must be a non-empty array/],
    [{ tokens: [{ token: TOKEN, roles: ['publish'], topics: ['a..b'] }] }, /^auth\.tokens\[0\]\.topics\[0\]: Topic pattern/],
    [
      { tokens: [{ token: TOKEN, roles: ['publish'], consumers: ['a'] }] },
      /^auth\.tokens\[0\]\.consumers limits the consumer ids a token acts for, but the token lacks the consume role$/,
    ],
    [
      { tokens: [{ token: TOKEN, roles: ['consume', 'admin'], consumers: ['a'] }] },
      /^auth\.tokens\[0\]\.consumers limits the consumer ids a token acts for, but the token has the admin role/,
    ],
    [{ tokens: [{ token: TOKEN, roles: ['consume'], consumers: [] }] }, /^auth\.tokens\[0\]\.consumers must be a non-empty array/],
    [{ tokens: [{ token: TOKEN, roles: ['consume'], consumers: 'a' }] }, /^auth\.tokens\[0\]\.consumers must be a non-empty array/],
    [{ tokens: [{ token: TOKEN, roles: ['consume'], consumers: ['a', 'b..c'] }] }, /^auth\.tokens\[0\]\.consumers\[1\]: Topic pattern/],
    [
      { tokens: [{ token: TOKEN, roles: ['consume'], consumers: ['a'.repeat(248)] }] },
      /^auth\.tokens\[0\]\.consumers\[0\]: Consumer-id pattern "a+" is too long; the maximum is 247 characters$/,
    ],
    [{ tokens: [{ token: TOKEN, roles: ['publish'], name: ' ' }] }, /^auth\.tokens\[0\]\.name must be a non-blank string$/],
    [{ tokens: [{ token: TOKEN, roles: ['publish'], secret: 1 }] }, /^auth\.tokens\[0\] has unknown field\(s\) secret/],
    [
      {
        tokens: [
          { token: TOKEN, roles: ['publish'] },
          { token: 'another-token-0123', roles: ['admin'] },
          { token: TOKEN, roles: ['admin'] },
        ],
      },
      /^auth\.tokens\[2\] repeats the token of auth\.tokens\[0\]$/,
    ],
  ])('refuses %j, naming the entry and never quoting a token', (auth, message) => {
    const error = (() => {
      try {
        resolveAuthOptions(auth);
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('accepted');
    })();
    expect(error).toBeInstanceOf(InvalidBrokerOptionsError);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(TOKEN);
  });
});
