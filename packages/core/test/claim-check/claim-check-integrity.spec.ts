import { Readable } from 'node:stream';
import {
  CLAIM_CHECK_VERSION,
  ClaimCheckReference,
  fetchClaimCheck,
  InvalidClaimCheckReferenceError,
  ObjectNotFoundError,
  ObjectStore,
  parseClaimCheckReference,
  sha256Hex,
} from '../../src';

const BYTES = Buffer.from(JSON.stringify({ report: 'x'.repeat(1000) }));

function reference(overrides: Partial<ClaimCheckReference> = {}): ClaimCheckReference {
  return {
    version: CLAIM_CHECK_VERSION,
    key: 'k1',
    sha256: sha256Hex(BYTES),
    size: BYTES.length,
    expiresAt: Date.now() + 60_000,
    ...overrides,
  };
}

/** A store whose one object is `bytes`, counting its reads (a unit test: the file store has its own tests). */
function storeOf(bytes: Buffer | undefined, failure?: Error): ObjectStore & { reads: number } {
  return {
    reads: 0,
    async put() {},
    async delete() {},
    async get(key: string) {
      this.reads++;
      if (failure) throw failure;
      if (bytes === undefined) throw new ObjectNotFoundError(key);
      return Readable.from([bytes.subarray(0, 100), bytes.subarray(100)]);
    },
  };
}

describe('fetchClaimCheck', () => {
  it('returns the stored bytes when size and digest match', async () => {
    const result = await fetchClaimCheck(storeOf(BYTES), reference());
    expect(result).toEqual({ valid: true, bytes: BYTES });
  });

  it('refuses an expired reference without reading the store', async () => {
    const store = storeOf(BYTES);
    const result = await fetchClaimCheck(store, reference({ expiresAt: Date.now() - 1 }));
    expect(result).toMatchObject({ valid: false, failure: 'expired', reason: expect.stringMatching(/expired at .*not read/) });
    expect(store.reads).toBe(0);
  });

  it('refuses a size above maxBytes without reading the store or allocating it', async () => {
    const store = storeOf(BYTES);
    const result = await fetchClaimCheck(store, reference(), { maxBytes: BYTES.length - 1 });
    expect(result).toMatchObject({
      valid: false,
      failure: 'size',
      reason: expect.stringMatching(/above the consumer's maximum .*not read/),
    });
    expect(store.reads).toBe(0);
    expect(await fetchClaimCheck(store, reference(), { maxBytes: BYTES.length })).toEqual({ valid: true, bytes: BYTES });
  });

  it('refuses bytes that differ from the digest', async () => {
    const tampered = Buffer.from(BYTES);
    tampered[10] ^= 1;
    expect(await fetchClaimCheck(storeOf(tampered), reference())).toMatchObject({ valid: false, failure: 'digest' });
  });

  it('refuses an object shorter or longer than its size', async () => {
    expect(await fetchClaimCheck(storeOf(BYTES.subarray(1)), reference())).toMatchObject({ valid: false, failure: 'size' });
    expect(await fetchClaimCheck(storeOf(Buffer.concat([BYTES, Buffer.from('!')])), reference())).toMatchObject({
      valid: false,
      failure: 'size',
    });
  });

  it('refuses a missing object, and throws a store failure for a retry', async () => {
    expect(await fetchClaimCheck(storeOf(undefined), reference())).toMatchObject({ valid: false, failure: 'missing' });
    await expect(fetchClaimCheck(storeOf(BYTES, new Error('EIO')), reference())).rejects.toThrow('EIO');
  });
});

describe('parseClaimCheckReference', () => {
  it('accepts a well-formed reference', () => {
    const valid = reference();
    expect(parseClaimCheckReference(valid)).toEqual(valid);
  });

  it.each([
    ['not an object', 'ref'],
    ['an unknown field', { ...reference(), url: 'http://x' }],
    ['another version', { ...reference(), version: 2 }],
    ['a path as key', { ...reference(), key: '../../etc/passwd' }],
    ['no digest', { ...reference(), sha256: undefined }],
    ['an uppercase digest', { ...reference(), sha256: 'A'.repeat(64) }],
    ['a negative size', { ...reference(), size: -1 }],
    ['an expiry that is not a number', { ...reference(), expiresAt: '2030-01-01' }],
  ])('refuses %s', (_, value) => {
    expect(() => parseClaimCheckReference(value)).toThrow(InvalidClaimCheckReferenceError);
  });
});
