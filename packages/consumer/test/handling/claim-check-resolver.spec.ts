import { CLAIM_CHECK_HEADER, DEFAULT_CLAIM_CHECK_MAX_BYTES, FileSystemObjectStore, sha256Hex } from '@mmmq/core';
import { useTempDir } from '@mmmq/test-support';
import { ClaimCheckResolver } from '../../src/handling/claim-check-resolver';
import type { ConsumerDelivery } from '../../src/listener/consumer-delivery';
import { resolveConsumerOptions } from '../../src/runtime/mmmq-consumer-options.resolver';

const CONTENT = { report: 'r-1', lines: ['a', 'b'] };
const BYTES = Buffer.from(JSON.stringify(CONTENT));

function delivery(content: unknown, headers: ConsumerDelivery['headers']): ConsumerDelivery {
  return { id: 'm-1', topic: 'report.generated', content, headers, offset: 0, deliveryCount: 1, redelivered: false, publishedAt: null };
}

describe('ClaimCheckResolver', () => {
  const dir = useTempDir('mmmq-consumer-claim-check-');
  const reference = (key: string) => ({ version: 1, key, sha256: sha256Hex(BYTES), size: BYTES.length, expiresAt: Date.now() + 60_000 });

  it('passes a message without the header unchanged, even one whose content looks like a reference', async () => {
    const plain = delivery(reference('k'), { source: 'x' });
    expect(await new ClaimCheckResolver(undefined).resolve(plain)).toEqual({ valid: true, delivery: plain });
  });

  it('gives the stored content, and the headers without the marker', async () => {
    const store = new FileSystemObjectStore(dir());
    await store.put('k1', BYTES, reference('k1'));
    const resolved = await new ClaimCheckResolver(store).resolve(delivery(reference('k1'), { source: 'x', [CLAIM_CHECK_HEADER]: 1 }));
    expect(resolved).toEqual({ valid: true, delivery: expect.objectContaining({ id: 'm-1', content: CONTENT, headers: { source: 'x' } }) });
  });

  it('reads the version header written as text, as a relay that writes only text headers sends it', async () => {
    const store = new FileSystemObjectStore(dir());
    await store.put('k2', BYTES, reference('k2'));
    const resolved = await new ClaimCheckResolver(store).resolve(delivery(reference('k2'), { [CLAIM_CHECK_HEADER]: '1' }));
    expect(resolved).toEqual({ valid: true, delivery: expect.objectContaining({ content: CONTENT, headers: {} }) });
  });

  it.each([
    ['without the claimCheck option', undefined, reference('k1'), 1, /the consumer option claimCheck is not set/],
    ['of an unknown version', 'store', reference('k1'), 2, /header is 2; this consumer reads version 1/],
    ['with a malformed reference', 'store', { key: 'k1' }, 1, /reference version must be 1/],
  ])('refuses a claim check %s', async (_, withStore, content, version, reason) => {
    const store = withStore === undefined ? undefined : new FileSystemObjectStore(dir());
    const resolved = await new ClaimCheckResolver(store).resolve(delivery(content, { [CLAIM_CHECK_HEADER]: version }));
    expect(resolved).toEqual({ valid: false, reason: expect.stringMatching(reason) });
  });

  it('is configured by the consumer option claimCheck, whose unknown fields and non-stores are refused', () => {
    const store = new FileSystemObjectStore(dir());
    expect(resolveConsumerOptions({ claimCheck: { store } }).claimCheck).toEqual({ store, maxBytes: DEFAULT_CLAIM_CHECK_MAX_BYTES });
    expect(resolveConsumerOptions({ claimCheck: { store, maxBytes: 1024 } }).claimCheck).toEqual({ store, maxBytes: 1024 });
    expect(() => resolveConsumerOptions({ claimCheck: { store, maxBytes: 0 } })).toThrow(/claimCheck\.maxBytes/);
    expect(resolveConsumerOptions({}).claimCheck).toBeUndefined();
    expect(() => resolveConsumerOptions({ claimCheck: { store, ttlMs: 1 } as never })).toThrow(/claimCheck.*ttlMs/);
    expect(() => resolveConsumerOptions({ claimCheck: { store: dir() } as never })).toThrow(/claimCheck\.store must be an ObjectStore/);
  });
});
