import { ListenerInbox } from '@mmmq/consumer';
import { Test } from '@nestjs/testing';
import { MmmqInboxModule } from '../../src/inbox/mmmq-inbox.module';
import { DEFAULT_INBOX_RETENTION_MS } from '../../src/inbox/inbox-retention';
import { InvalidInboxOptionsError } from '../../src/inbox/invalid-inbox-options.error';
import { resolveInboxOptions } from '../../src/inbox/mmmq-inbox-options.resolver';
import type { MmmqInboxOptions } from '../../src/inbox/mmmq-inbox.options';
import { pgAdapter } from '../../src/sql/pg-adapter';
import { pgTransaction } from '../../src/sql/pg-transaction';
import { typeOrmAdapter } from '../../src/sql/typeorm-adapter';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

const transaction: MmmqInboxOptions['transaction'] = (work) => work({});

describe('MmmqInboxModule options', () => {
  it('applies the defaults: schema public, 14 days of retention, hourly, 1000 rows a batch', () => {
    expect(resolveInboxOptions({ adapter: pgAdapter, transaction })).toMatchObject({
      quotedSchema: '"public"',
      retention: { maxAgeMs: DEFAULT_INBOX_RETENTION_MS, intervalMs: 3_600_000, batchSize: 1000 },
    });
  });

  it('groupCommit: off by default; true means 100 deliveries a transaction, 4 transactions at once; limits can be set', () => {
    expect(resolveInboxOptions({ adapter: pgAdapter, transaction }).groupCommit).toBeUndefined();
    expect(resolveInboxOptions({ adapter: pgAdapter, transaction, groupCommit: false }).groupCommit).toBeUndefined();
    expect(resolveInboxOptions({ adapter: pgAdapter, transaction, groupCommit: true }).groupCommit).toEqual({
      maxMessages: 100,
      maxTransactions: 4,
    });
    expect(resolveInboxOptions({ adapter: pgAdapter, transaction, groupCommit: { maxTransactions: 2 } }).groupCommit).toEqual({
      maxMessages: 100,
      maxTransactions: 2,
    });
  });

  it.each([
    [{ adapter: pgAdapter, transaction, table: 'inbox' }, 'inbox options has unknown'],
    [{ adapter: pgAdapter }, 'transaction must be a function'],
    [{ transaction }, 'adapter must be a SqlAdapter'],
    [{ adapter: pgAdapter, transaction, schema: 'a; DROP' }, 'schema must be a PostgreSQL identifier'],
    [{ adapter: pgAdapter, transaction, retention: { maxAgeMs: 0 } }, 'retention.maxAgeMs must be a positive integer'],
    [{ adapter: pgAdapter, transaction, retention: { maxAge: 1 } }, 'retention has unknown'],
    [{ adapter: pgAdapter, transaction, retention: { intervalMs: -1 } }, 'retention.intervalMs'],
    [{ adapter: pgAdapter, transaction, groupCommit: 'yes' }, 'groupCommit must be'],
    [{ adapter: pgAdapter, transaction, groupCommit: { maxMessages: 0 } }, 'groupCommit.maxMessages must be a positive integer'],
    [{ adapter: pgAdapter, transaction, groupCommit: { maxTransactions: 1001 } }, 'groupCommit.maxTransactions'],
    [{ adapter: pgAdapter, transaction, groupCommit: { maxBatch: 10 } }, 'groupCommit has unknown'],
  ])('refuses %j, naming the option', (options, message) => {
    expect(() => resolveInboxOptions(options as MmmqInboxOptions)).toThrow(InvalidInboxOptionsError);
    expect(() => resolveInboxOptions(options as MmmqInboxOptions)).toThrow(message);
  });

  it("accepts each library's transaction runner as the docs write it (a compile-time check)", () => {
    const typeorm = (dataSource: DataSource) =>
      MmmqInboxModule.forRoot({ adapter: typeOrmAdapter, transaction: (work) => dataSource.transaction(work) });
    const pg = (pool: Pool) => MmmqInboxModule.forRoot({ adapter: pgAdapter, transaction: pgTransaction(pool) });
    expect([typeorm, pg]).toHaveLength(2);
  });

  it('forRootAsync provides the ListenerInbox the consumer looks for, with the configured retention', async () => {
    const module = await Test.createTestingModule({
      imports: [
        MmmqInboxModule.forRootAsync({
          useFactory: () => ({ adapter: pgAdapter, transaction, retention: { maxAgeMs: 86_400_000, intervalMs: 0 } }),
        }),
      ],
    }).compile();
    expect(module.get(ListenerInbox).retentionMs).toBe(86_400_000);
    await module.close();
  });
});
