import { CLAIM_CHECK_HEADER, DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES, DEFAULT_CLAIM_CHECK_TTL_MS, ObjectStore } from '@mmmq/core';
import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { useTempDir } from '@mmmq/test-support';
import { Test, TestingModule } from '@nestjs/testing';
import {
  FileSystemObjectStore,
  InvalidProducerOptionsError,
  MmmqProducerModule,
  MmmqProducerOptions,
  ProduceError,
  Producer,
} from '../src';
import { resolveProducerOptions } from '../src/mmmq-producer-options.resolver';

describe('the producer option claimCheck', () => {
  const dir = useTempDir('mmmq-producer-claim-check-');
  let module: TestingModule | undefined;

  const start = async (claimCheck: MmmqProducerOptions['claimCheck']) => {
    module = await Test.createTestingModule({
      imports: [MmmqTestingModule.forRoot(), MmmqProducerModule.forRoot({ claimCheck })],
    }).compile();
    await module.init();
    return { producer: module.get(Producer), broker: module.get(InMemoryBroker) };
  };
  afterEach(() => module?.close());

  it('applies the named defaults: 1 MiB, 7 days', () => {
    const store = new FileSystemObjectStore(dir());
    expect(resolveProducerOptions({ broker: 'http://b:1', claimCheck: { store } }, false).claimCheck).toEqual({
      store,
      thresholdBytes: DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES,
      ttlMs: DEFAULT_CLAIM_CHECK_TTL_MS,
    });
    expect([DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES, DEFAULT_CLAIM_CHECK_TTL_MS]).toEqual([1024 * 1024, 7 * 24 * 60 * 60 * 1000]);
    expect(resolveProducerOptions({ broker: 'http://b:1' }, false).claimCheck).toBeUndefined();
  });

  it.each([
    [{ store: undefined }, /claimCheck\.store must be an ObjectStore/],
    [{ store: { put() {} } }, /claimCheck\.store must be an ObjectStore/],
    [{ store: 'dir' }, /claimCheck\.store must be an ObjectStore/],
    [{ thresholdBytes: 0 }, /claimCheck\.thresholdBytes/],
    [{ ttlMs: -1 }, /claimCheck\.ttlMs/],
    [{ threshold: 10 }, /Unknown claimCheck option "threshold"/],
    ['yes', /claimCheck must be an object/],
  ])('refuses %j at bootstrap', (claimCheck, message) => {
    const store = new FileSystemObjectStore(dir());
    const option = typeof claimCheck === 'object' ? { store, ...claimCheck } : claimCheck;
    expect(() => resolveProducerOptions({ broker: 'http://b:1', claimCheck: option }, false)).toThrow(InvalidProducerOptionsError);
    expect(() => resolveProducerOptions({ broker: 'http://b:1', claimCheck: option }, false)).toThrow(message);
  });

  it('keeps call order when a large content is being stored while smaller ones follow', async () => {
    const { producer, broker } = await start({ store: new FileSystemObjectStore(dir()), thresholdBytes: 100 });
    const contents = [{ n: 0 }, { n: 1, body: 'x'.repeat(500) }, { n: 2 }, { n: 3, body: 'y'.repeat(500) }, { n: 4 }];
    await Promise.all(contents.map((content) => producer.produce('report.generated', content)));
    const published = broker.published('report.generated');
    expect(published.map((message) => message.headers[CLAIM_CHECK_HEADER] ?? null)).toEqual([null, 1, null, 1, null]);
    expect(published.filter((message) => message.headers[CLAIM_CHECK_HEADER] === undefined).map((message) => message.content)).toEqual([
      { n: 0 },
      { n: 2 },
      { n: 4 },
    ]);
  });

  it('rejects with a ProduceError, sending nothing, when the store cannot write', async () => {
    const failing: ObjectStore = {
      put: () => Promise.reject(new Error('ENOSPC: no space left on device')),
      get: () => Promise.reject(new Error('unused')),
      delete: () => Promise.resolve(),
    };
    const { producer, broker } = await start({ store: failing, thresholdBytes: 10 });
    const error = await producer.produce('report.generated', { body: 'x'.repeat(100) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProduceError);
    expect(error).toMatchObject({ attempts: 0, topic: 'report.generated' });
    expect((error as Error).message).toMatch(/could not be written to the object store: ENOSPC.*Nothing was sent/);
    await expect(producer.produceBatch([{ topic: 'report.generated', content: 'y'.repeat(100) }])).rejects.toThrow(ProduceError);
    expect(broker.published('report.generated')).toEqual([]);
  });
});
