import { findByToken, tokenDigest } from '../../src/security/token-digest';

describe('findByToken', () => {
  const entries = ['first-token-0123456789', 'second-token-0123456789', 'third-token-0123456789'].map((token, index) => ({
    index,
    digest: tokenDigest(token),
  }));

  it('finds the entry of each configured token', () => {
    expect(findByToken(entries, 'first-token-0123456789')?.index).toBe(0);
    expect(findByToken(entries, 'second-token-0123456789')?.index).toBe(1);
    expect(findByToken(entries, 'third-token-0123456789')?.index).toBe(2);
  });

  it.each(['', 'first-token-012345678', 'first-token-01234567890', 'FIRST-TOKEN-0123456789', 'first-token-0123456789 '])(
    'finds nothing for %j, a prefix, an extension or another case of a token',
    (presented) => {
      expect(findByToken(entries, presented)).toBeUndefined();
    },
  );

  it('compares digests of one length whatever the tokens, so timingSafeEqual never throws', () => {
    expect(tokenDigest('x').length).toBe(32);
    expect(tokenDigest('x'.repeat(4096)).length).toBe(32);
    expect(() => findByToken(entries, 'y'.repeat(10_000))).not.toThrow();
  });

  it('looks at every entry even after a match (no early exit)', () => {
    const looked: number[] = [];
    const watched = entries.map((entry) => ({
      get digest() {
        looked.push(entry.index);
        return entry.digest;
      },
    }));
    findByToken(watched, 'first-token-0123456789');
    expect(looked).toEqual([0, 1, 2]);
  });
});
