import { startBroker, waitFor, type BrokerApp } from '@mmmq/test-support';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MmmqOutboxModule, OutboxRelayHost } from '../src/outbox/mmmq-outbox.module';
import { Outbox } from '../src/outbox/outbox';
import { InvalidOutboxOptionsError } from '../src/errors/invalid-outbox-options.error';
import { OutboxRelay } from '../src/relay/outbox-relay';
import { resolveRelayOptions } from '../src/relay/outbox-relay-options.resolver';
import { DEFAULT_RELAY_BATCH_SIZE, DEFAULT_RELAY_LEASE_MS, DEFAULT_RELAY_POLL_INTERVAL_MS } from '../src/relay/outbox-relay.options';
import { pgAdapter } from '../src/sql/pg-adapter';
import { outboxRows } from './support/outbox-fixtures';
import { createTestDatabase, TEST_DATABASE_URL, TestDatabase } from './support/test-database';

describe('MmmqOutboxModule', () => {
  let db: TestDatabase;
  let broker: BrokerApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    broker = await startBroker();
  });

  afterAll(async () => {
    await broker?.close();
    await db?.drop();
  });

  it('provides an Outbox and runs the relay from bootstrap to shutdown', async () => {
    const module = await Test.createTestingModule({
      imports: [
        MmmqOutboxModule.forRoot({
          adapter: pgAdapter,
          schema: db.schema,
          relay: { connection: TEST_DATABASE_URL, producer: { broker: broker.url }, pollIntervalMs: 60_000 },
        }),
      ],
    }).compile();
    await module.init();
    const outbox = module.get(Outbox);
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await outbox.add(client, 'module.events', { hello: 'world' }, { id: 'module-1' });
      await client.query('COMMIT');
    } finally {
      client.release();
    }

    await waitFor(async () => (await outboxRows(db)).some((row) => row.message_id === 'module-1' && row.status === 'PUBLISHED'), {
      message: 'the module’s relay to publish the row',
    });
    expect(module.get(OutboxRelayHost).relay).toBeInstanceOf(OutboxRelay);
    await module.close();
    expect((await broker.stored('module.events')).map((message) => message.id)).toEqual(['module-1']);
  });

  it('reads its options from forRootAsync and runs no relay without relay options', async () => {
    @Module({ providers: [{ provide: 'SCHEMA', useValue: db.schema }], exports: ['SCHEMA'] })
    class ConfigModule {}
    const module = await Test.createTestingModule({
      imports: [
        MmmqOutboxModule.forRootAsync({
          imports: [ConfigModule],
          inject: ['SCHEMA'],
          useFactory: (schema: string) => ({ adapter: pgAdapter, schema }),
        }),
      ],
    }).compile();
    await module.init();
    expect(module.get(Outbox)).toBeInstanceOf(Outbox);
    expect(module.get(OutboxRelayHost).relay).toBeUndefined();
    await module.close();
  });

  it.each([
    [{ adapter: pgAdapter, shema: 'x' }, /unknown field\(s\) shema/],
    [{ schema: 'public' }, /adapter is required/],
    [{ adapter: {} }, /adapter must be a SqlAdapter/],
    [{ adapter: pgAdapter, schema: 'no-dashes' }, /schema must be a PostgreSQL identifier/],
    [{ adapter: pgAdapter, relay: { producer: { broker: 'http://x' } } }, /relay.connection is required/],
    [
      { adapter: pgAdapter, relay: { connection: 'postgres://x', producer: { broker: 'http://x' }, leaseMs: 0 } },
      /relay.leaseMs must be an integer/,
    ],
    [
      { adapter: pgAdapter, relay: { connection: 'postgres://x', producer: { broker: 'http://x' }, pollMs: 5 } },
      /relay has unknown field\(s\) pollMs/,
    ],
    [
      { adapter: pgAdapter, relay: { connection: 'postgres://x', producer: { broker: 'http://x' }, schema: 'a' } },
      /relay.schema is not an option/,
    ],
  ])('refuses invalid options at bootstrap, naming the option: %j', async (options, message) => {
    const compiling = Test.createTestingModule({ imports: [MmmqOutboxModule.forRoot(options as never)] }).compile();
    await expect(compiling).rejects.toThrow(InvalidOutboxOptionsError);
    await expect(Test.createTestingModule({ imports: [MmmqOutboxModule.forRoot(options as never)] }).compile()).rejects.toThrow(message);
  });

  it('applies the named defaults to the relay options', () => {
    const resolved = resolveRelayOptions({ connection: TEST_DATABASE_URL, producer: { broker: broker.url } });
    expect(resolved).toMatchObject({
      schema: 'public',
      batchSize: DEFAULT_RELAY_BATCH_SIZE,
      leaseMs: DEFAULT_RELAY_LEASE_MS,
      pollIntervalMs: DEFAULT_RELAY_POLL_INTERVAL_MS,
      orderByAggregate: false,
      retention: { maxAgeMs: 7 * 24 * 60 * 60 * 1000 },
    });
    expect(
      resolveRelayOptions({ connection: TEST_DATABASE_URL, producer: { broker: broker.url }, retention: false }).retention,
    ).toBeUndefined();
  });

  it('refuses invalid options of the plain classes too', () => {
    expect(() => new Outbox({ adapter: pgAdapter, schema: 'a b' })).toThrow(InvalidOutboxOptionsError);
    expect(() => new OutboxRelay({ connection: TEST_DATABASE_URL, producer: { broker: broker.url }, batchSize: 5000 })).toThrow(
      /relay.batchSize must be at most 1000/,
    );
  });
});
