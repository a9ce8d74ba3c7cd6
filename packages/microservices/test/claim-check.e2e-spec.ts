import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Controller, INestMicroservice } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Test, TestingModule } from '@nestjs/testing';
import { CLAIM_CHECK_HEADER, ClaimCheckReference, FileSystemObjectStore } from '@mmmq/core';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { BrokerApp, FAST_BACKOFF, makeTempDir, removeTempDir, startBroker, waitFor } from '@mmmq/test-support';
import { startMicroservice } from './support/microservice-app';

const handled: Array<{ name: string; rows: string }> = [];

@Controller()
class ExportController {
  @EventPattern('export.ready')
  handle(@Payload() content: { name: string; rows: string }): void {
    handled.push(content);
  }
}

const CONSUMER_ID = 'exports.export.ready';
const MiB = 1024 * 1024;

describe('MmmqServer resolves claim checks (pull delivery)', () => {
  let broker: BrokerApp;
  let microservice: INestMicroservice;
  let producerModule: TestingModule;
  let producer: Producer;
  let storeDir: string;

  beforeAll(async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    storeDir = await makeTempDir('mmmq-claim-check-');
    const store = new FileSystemObjectStore(storeDir);
    ({ app: microservice } = await startMicroservice([ExportController], {
      app: 'exports',
      broker: broker.url,
      delivery: 'pull',
      claimCheck: { store },
    }));
    producerModule = await Test.createTestingModule({
      imports: [MmmqProducerModule.forRoot({ broker: broker.url, claimCheck: { store, thresholdBytes: 64 * 1024 } })],
    }).compile();
    await producerModule.init();
    producer = producerModule.get(Producer);
  });
  afterAll(async () => {
    await producerModule?.close();
    await microservice?.close();
    await broker?.close();
    await removeTempDir(storeDir);
  });

  it('hands the handler the stored content, and dead-letters an altered one with its reason', async () => {
    const rows = 'r'.repeat(3 * MiB);
    await producer.produce('export.ready', { name: 'intact', rows });
    await waitFor(() => handled.some(({ name }) => name === 'intact'), { message: 'the intact export' });
    expect(handled.find(({ name }) => name === 'intact')!.rows === rows).toBe(true);

    // The intact export's object, altered on disk, then referenced again by a message published by hand.
    const [intact] = await broker.stored('export.ready');
    const reference = JSON.parse(intact.content) as ClaimCheckReference;
    const path = join(storeDir, reference.key);
    const altered = Buffer.from(await readFile(path));
    altered[altered.length - 3] = 's'.charCodeAt(0);
    await writeFile(path, altered);
    const response = await broker.request('POST', '/mmmq/messages', {
      topic: 'export.ready',
      id: 'altered',
      content: reference,
      headers: { [CLAIM_CHECK_HEADER]: 1 },
    });
    expect(response.status).toBe(200);

    await waitFor(async () => (await broker.deadLetters(CONSUMER_ID)).length === 1, { message: 'the altered export dead-lettered' });
    const [letter] = await broker.deadLetters(CONSUMER_ID);
    expect(letter.id).toBe('altered');
    // Pull settles a refusal with terminate (push answers NACK retry: false, REJECTED); either way the reason is last-error.
    expect(letter.headers).toMatchObject({ 'mmmq-dlq-reason': 'TERMINATED', 'mmmq-dlq-attempts': 1 });
    expect(letter.headers['mmmq-dlq-last-error']).toMatch(/claim check: .*has SHA-256 [0-9a-f]{64}, not [0-9a-f]{64}/);
    expect(handled).toHaveLength(1);
  });
});
