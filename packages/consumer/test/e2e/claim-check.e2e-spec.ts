import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { CLAIM_CHECK_HEADER, ClaimCheckReference, FileSystemObjectStore, ObjectMetadata, ObjectStore, sha256Hex } from '@mmmq/core';
// The producer is this test's client; the path mapping resolves it from the sources, as for every @mmmq package.
import { MessageRejectedError, MmmqProducerModule, MmmqProducerOptions, Producer } from '@mmmq/producer';
import { makeTempDir, removeTempDir } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

const MiB = 1024 * 1024;
const TOPIC = 'report.generated';
const CONSUMER_ID = 'billing.report-listener';

interface Report {
  name: string;
  body?: string;
}

@Injectable()
@MMMQListener(TOPIC)
class ReportListener implements MMMQListener<Report> {
  readonly received: Array<{ content: Report; headers: MessageContext['headers']; deliveryCount: number }> = [];

  handle(content: Report, context: MessageContext): void {
    this.received.push({ content, headers: context.headers, deliveryCount: context.deliveryCount });
  }

  named(name: string) {
    return this.received.find((entry) => entry.content.name === name);
  }
}

/** The consumer's store: the producer's directory, with the keys it read and reads made to fail on demand. */
class ObservedStore implements ObjectStore {
  readonly reads: string[] = [];
  /** Keys whose next read fails with an I/O error. */
  readonly failingKeys = new Set<string>();

  constructor(private readonly inner: ObjectStore) {}

  put(key: string, body: Buffer, metadata: ObjectMetadata): Promise<void> {
    return this.inner.put(key, body, metadata);
  }

  async get(key: string): Promise<Readable> {
    this.reads.push(key);
    if (this.failingKeys.delete(key)) {
      throw new Error('EIO: the volume is not mounted yet');
    }
    return this.inner.get(key);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
}

describe('claim check: large contents through an object store', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;
  let storeDir: string;
  let store: FileSystemObjectStore;
  let consumerStore: ObservedStore;
  const producers: TestingModule[] = [];

  const startProducer = async (options: MmmqProducerOptions): Promise<Producer> => {
    const module = await Test.createTestingModule({ imports: [MmmqProducerModule.forRoot(options)] }).compile();
    await module.init();
    producers.push(module);
    return module.get(Producer);
  };
  const listener = () => consumer.app.get(ReportListener);
  const deadLetter = async (name: string) => {
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    const letters = await broker.deadLetters(CONSUMER_ID);
    const letter = letters.find((candidate) => candidate.id === name);
    if (letter === undefined) throw new Error(`no dead letter ${name} among ${JSON.stringify(letters.map((candidate) => candidate.id))}`);
    return letter;
  };
  /** Stores `bytes` as the producer would and publishes a claim check to them with `reference` overrides. */
  const publishReference = async (name: string, bytes: Buffer, overrides: Partial<ClaimCheckReference> = {}) => {
    const reference: ClaimCheckReference = {
      version: 1,
      key: randomUUID(),
      sha256: sha256Hex(bytes),
      size: bytes.length,
      expiresAt: Date.now() + 60_000,
      ...overrides,
    };
    await store.put(reference.key, bytes, reference);
    await publishClaimCheck(name, reference);
    return reference;
  };
  const publishClaimCheck = async (name: string, reference: unknown) => {
    const response = await broker.request('POST', '/mmmq/messages', {
      topic: TOPIC,
      id: name,
      content: reference,
      headers: { [CLAIM_CHECK_HEADER]: 1 },
    });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    broker = await startBroker({ stream: { port: 0 } });
    storeDir = await makeTempDir('mmmq-claim-check-');
    store = new FileSystemObjectStore(storeDir);
    consumerStore = new ObservedStore(new FileSystemObjectStore(storeDir));
    consumer = await startRegisteredConsumer(broker, [ReportListener], { claimCheck: { store: consumerStore } });
  });
  afterAll(async () => {
    await Promise.all(producers.map((module) => module.close()));
    await consumer?.close();
    await broker?.close();
    await removeTempDir(storeDir);
  });

  it.each([
    ['HTTP', () => broker.url],
    ['the publish stream', () => broker.streamUrl],
  ])('delivers a 20 MiB content end to end over %s, the broker storing only the reference', async (transport, url) => {
    const producer = await startProducer({ broker: url(), claimCheck: { store } });
    const name = `twenty-mib-${transport}`;
    const body = randomBytes(15 * MiB).toString('base64'); // 20 MiB of text
    const published = await producer.produce(TOPIC, { name, body }, { headers: { source: 'reports' } });

    await waitFor(() => listener().named(name) !== undefined, `the 20 MiB report over ${transport}`, 60_000);
    const received = listener().named(name)!;
    expect(received.content.body === body).toBe(true);
    // As if sent inline: the user's headers, not the marker.
    expect(received.headers).toEqual({ source: 'reports' });

    const stored = (await broker.stored(TOPIC)).find((message) => message.id === published.id)!;
    expect(stored.content.length).toBeLessThan(300);
    expect(stored.headers).toEqual({ source: 'reports', [CLAIM_CHECK_HEADER]: 1 });
    const reference = JSON.parse(stored.content) as ClaimCheckReference;
    expect(reference).toEqual({
      version: 1,
      key: expect.any(String),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      size: Buffer.byteLength(JSON.stringify({ name, body })),
      expiresAt: expect.any(Number),
    });
    expect(reference.expiresAt).toBeGreaterThan(Date.now() + 6 * 24 * 60 * 60 * 1000);
    expect((await readFile(join(storeDir, reference.key))).length).toBe(reference.size);
  });

  it('leaves a content under the threshold inline, and claim-checks batches and transactions', async () => {
    const producer = await startProducer({ broker: broker.url, claimCheck: { store, thresholdBytes: 1000 } });
    const small = await producer.produce(TOPIC, { name: 'small' });
    const [batched] = await producer.produceBatch([{ topic: TOPIC, content: { name: 'batched', body: 'b'.repeat(2000) } }]);
    const { published } = await producer.transaction((tx) => {
      tx.produce(TOPIC, { name: 'transacted', body: 't'.repeat(2000) });
    });

    await waitFor(() => ['small', 'batched', 'transacted'].every((name) => listener().named(name)), 'the three reports');
    expect(listener().named('batched')!.content.body).toBe('b'.repeat(2000));
    expect(listener().named('transacted')!.content.body).toBe('t'.repeat(2000));
    const stored = await broker.stored(TOPIC);
    const byId = (id: string) => stored.find((message) => message.id === id)!;
    expect(JSON.parse(byId(small.id).content)).toEqual({ name: 'small' });
    expect(byId(small.id).headers).toEqual({});
    expect(byId(batched.id).headers).toEqual({ [CLAIM_CHECK_HEADER]: 1 });
    expect(byId(published[0].id).headers).toEqual({ [CLAIM_CHECK_HEADER]: 1 });
  });

  it('dead-letters a tampered object with a digest reason, never handing it to the listener', async () => {
    const bytes = Buffer.from(JSON.stringify({ name: 'tampered', body: 'a'.repeat(5000) }));
    const reference = await publishReferenceAfter('tampered', bytes, async (key) => {
      const path = join(storeDir, key);
      const changed = Buffer.from(await readFile(path));
      changed[100] = 'b'.charCodeAt(0);
      await writeFile(path, changed);
    });
    const letter = await deadLetter('tampered');
    expect(letter.headers['mmmq-dlq-reason']).toBe('REJECTED');
    expect(letter.headers['mmmq-dlq-attempts']).toBe(1);
    expect(letter.headers['mmmq-dlq-last-error']).toMatch(new RegExp(`claim check: .*has SHA-256 [0-9a-f]{64}, not ${reference.sha256}`));
    expect(listener().named('tampered')).toBeUndefined();
  });

  it('dead-letters an expired reference with an expiry reason, without reading the store', async () => {
    const bytes = Buffer.from(JSON.stringify({ name: 'expired' }));
    const reference = await publishReference('expired', bytes, { expiresAt: Date.now() - 1000 });
    const letter = await deadLetter('expired');
    expect(letter.headers['mmmq-dlq-reason']).toBe('REJECTED');
    expect(letter.headers['mmmq-dlq-last-error']).toMatch(/claim check: the claim check expired at .*its object was not read/);
    expect(consumerStore.reads).not.toContain(reference.key);
  });

  it('dead-letters a wrong size, a missing object and a malformed reference with their reasons', async () => {
    const bytes = Buffer.from(JSON.stringify({ name: 'resized' }));
    await publishReference('resized', bytes, { size: bytes.length + 1 });
    await publishReferenceAfter('missing', Buffer.from('{"name":"missing"}'), (key) => store.delete(key));
    await publishClaimCheck('hostile-key', {
      version: 1,
      key: '../outside',
      sha256: sha256Hex(bytes),
      size: bytes.length,
      expiresAt: Date.now() + 60_000,
    });

    expect((await deadLetter('resized')).headers['mmmq-dlq-last-error']).toMatch(/claim check: .* has \d+ bytes, not its size \d+/);
    expect((await deadLetter('missing')).headers['mmmq-dlq-last-error']).toMatch(/claim check: no object is stored under/);
    expect((await deadLetter('hostile-key')).headers['mmmq-dlq-last-error']).toMatch(/claim check: The claim check reference key must be/);
    expect(['resized', 'missing', 'hostile-key'].map((name) => listener().named(name))).toEqual([undefined, undefined, undefined]);
  });

  it('retries a claim check whose store failed to read, like a failed handler', async () => {
    const key = randomUUID();
    consumerStore.failingKeys.add(key);
    await publishReference('flaky-store', Buffer.from(JSON.stringify({ name: 'flaky-store' })), { key });
    await waitFor(() => listener().named('flaky-store') !== undefined, 'the report after the store recovered');
    expect(listener().named('flaky-store')!.deliveryCount).toBe(2);
  });

  it('without the option, a content over the body limit is refused with 413 and a hint at claimCheck', async () => {
    const producer = await startProducer({ broker: broker.url });
    const error = await producer.produce(TOPIC, { name: 'too-large', body: 'x'.repeat(2 * MiB) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect((error as MessageRejectedError).status).toBe(413);
    expect((error as Error).message).toMatch(/set the producer option claimCheck/);
  });

  /** As {@link publishReference}, with `change(key)` run on the stored object before publishing. */
  async function publishReferenceAfter(name: string, bytes: Buffer, change: (key: string) => Promise<void>) {
    const key = randomUUID();
    const reference: ClaimCheckReference = {
      version: 1,
      key,
      sha256: sha256Hex(bytes),
      size: bytes.length,
      expiresAt: Date.now() + 60_000,
    };
    await store.put(key, bytes, reference);
    await change(key);
    await publishClaimCheck(name, reference);
    return reference;
  }
});
