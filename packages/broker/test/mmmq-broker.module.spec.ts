import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { Injectable, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { Dispatcher, InvalidBrokerOptionsError, MmmqBrokerModule, MmmqBrokerOptions, TopicRegistry } from '../src';
import { TopicQueueContainer } from '../src/storage';

describe('MmmqBrokerModule', () => {
  let rootDir: string;

  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-module-'));
  });

  afterEach(() => rm(rootDir, { recursive: true, force: true }));

  const failure = (module: unknown): Promise<unknown> =>
    NestFactory.create(module as never, { logger: false, abortOnError: false }).catch((error: unknown) => error);

  it('fails application creation on an invalid option, naming it', async () => {
    const error = await failure(MmmqBrokerModule.forRoot({ persistence: { rootDir, segment: { maxBytes: -5 } } }));
    expect(error).toBeInstanceOf(InvalidBrokerOptionsError);
    expect((error as Error).message).toBe('persistence.segment.maxBytes must be a positive integer, got -5');
  });

  it('fails application creation on an unknown option, naming it, from forRoot and forRootAsync', async () => {
    const misspelt = { persistence: { rootDir, segments: { maxBytes: 1024 } } } as MmmqBrokerOptions;
    const fromForRoot = await failure(MmmqBrokerModule.forRoot(misspelt));
    expect(fromForRoot).toBeInstanceOf(InvalidBrokerOptionsError);
    expect((fromForRoot as Error).message).toBe(
      'Unknown option persistence.segments; the persistence options are rootDir, segment, flush, fsync, fsyncIntervalMs, diskGuard, retention',
    );
    const fromFactory = await failure(MmmqBrokerModule.forRootAsync({ useFactory: () => ({ persistence: { rootDir }, dispatcher: [] }) }));
    expect(fromFactory).toBeInstanceOf(InvalidBrokerOptionsError);
    expect((fromFactory as Error).message).toMatch(
      /^Unknown broker option dispatcher; the options are persistence, http, stream, dispatchers,/,
    );
  });

  it('wires the storage under the given root directory and closes idempotently', async () => {
    const app = await NestFactory.create(MmmqBrokerModule.forRoot({ persistence: { rootDir } }), { logger: false });
    await app.init();
    expect(app.get(TopicQueueContainer).topicsDir).toBe(join(rootDir, 'topics'));
    await app.close();
    await expect(app.close()).resolves.toBeUndefined();
  });

  it('takes its options from a forRootAsync factory', async () => {
    const module = MmmqBrokerModule.forRootAsync({ useFactory: async () => ({ persistence: { rootDir: join(rootDir, 'async') } }) });
    const app = await NestFactory.create(module, { logger: false });
    await app.init();
    expect(app.get(TopicQueueContainer).topicsDir).toBe(join(rootDir, 'async', 'topics'));
    await app.close();
  });

  it('reads its options from @nestjs/config through forRootAsync, and isGlobal makes Dispatcher and TopicRegistry injectable anywhere', async () => {
    @Injectable()
    class Operations {
      constructor(
        readonly dispatcher: Dispatcher,
        readonly topics: TopicRegistry,
      ) {}
    }
    @Module({ providers: [Operations] })
    class OperationsModule {}
    @Module({
      imports: [
        ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ MMMQ_ROOT_DIR: join(rootDir, 'config') })] }),
        MmmqBrokerModule.forRootAsync({
          isGlobal: true,
          imports: [ConfigModule],
          inject: [ConfigService],
          useFactory: (config: ConfigService) => ({
            persistence: { rootDir: config.getOrThrow<string>('MMMQ_ROOT_DIR') },
            dispatchers: [{ consumerId: 'billing', host: 'http://127.0.0.1:9', pattern: 'order.*' }],
          }),
        }),
        OperationsModule,
      ],
    })
    class AppModule {}

    const app = await NestFactory.create(AppModule, { logger: false });
    await app.init();
    const operations = app.get(Operations);
    expect(operations.dispatcher.list().map((dispatcher) => dispatcher.consumerId)).toEqual(['billing']);
    expect(operations.topics.list()).toEqual([]);
    expect(app.get(TopicQueueContainer).topicsDir).toBe(join(rootDir, 'config', 'topics'));
    await app.close();
  });

  it('takes its options from a class with forRootAsync({ useClass })', async () => {
    const dir = join(rootDir, 'class');
    @Injectable()
    class BrokerOptionsFactory {
      createMmmqBrokerOptions(): MmmqBrokerOptions {
        return { persistence: { rootDir: dir } };
      }
    }
    const app = await NestFactory.create(MmmqBrokerModule.forRootAsync({ useClass: BrokerOptionsFactory }), { logger: false });
    await app.init();
    expect(app.get(TopicQueueContainer).topicsDir).toBe(join(dir, 'topics'));
    await app.close();
  });

  it('installs no event emitter in a host application that has none', async () => {
    // abortOnError off: a lookup that fails would otherwise end the process rather than throw.
    const app = await NestFactory.create(MmmqBrokerModule.forRoot({ persistence: { rootDir } }), { logger: false, abortOnError: false });
    await app.init();
    expect(() => app.get(EventEmitter2, { strict: false })).toThrow(/could not find EventEmitter/);
    await app.close();
  });

  it("uses the host application's event emitter when it has one", async () => {
    @Module({ imports: [EventEmitterModule.forRoot(), MmmqBrokerModule.forRoot({ persistence: { rootDir } })] })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { logger: false });
    await app.init();
    const emitter = app.get(EventEmitter2);
    const created: unknown[] = [];
    emitter.on('mmmq.topic.created', (event: unknown) => created.push(event));
    await app.get(TopicQueueContainer).getOrCreate(Topic.of('order.created'));
    expect(created).toEqual([{ topic: 'order.created', reserved: false }]);
    await app.close();
  });
});
