import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { InvalidBrokerOptionsError, MmmqBrokerModule } from '../src';
import { TopicQueueContainer } from '../src/storage';

describe('MmmqBrokerModule.forRoot', () => {
  let rootDir: string;

  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-module-'));
  });

  afterEach(() => rm(rootDir, { recursive: true, force: true }));

  it('fails application creation on an invalid option, naming it', async () => {
    const module = MmmqBrokerModule.forRoot({ persistence: { rootDir, segment: { maxBytes: -5 } } });
    const error: unknown = await NestFactory.create(module, { logger: false, abortOnError: false }).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidBrokerOptionsError);
    expect((error as Error).message).toBe('persistence.segment.maxBytes must be a positive integer, got -5');
  });

  it('wires the storage under the given root directory and closes idempotently', async () => {
    const app = await NestFactory.create(MmmqBrokerModule.forRoot({ persistence: { rootDir } }), { logger: false });
    await app.init();
    expect(app.get(TopicQueueContainer).topicsDir).toBe(join(rootDir, 'topics'));
    await app.close();
    await expect(app.close()).resolves.toBeUndefined();
  });
});
