import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidConsumerIdError } from '@mmmq/core';
import { CheckpointDirectory } from '../../src/storage/checkpoint-directory';
import { Journal } from '../../src/storage/journal/journal';
import { openJournal } from './journal-fixture';
import { useTempDir } from './temp-dir';

describe('CheckpointDirectory', () => {
  const dir = useTempDir();
  let journal: Journal;

  beforeEach(async () => {
    journal = await openJournal(dir());
  });

  afterEach(() => journal.close());

  it('opens one file per consumer, lists and deletes them', async () => {
    const checkpoints = await CheckpointDirectory.open(dir(), journal);
    const a = await checkpoints.open('billing.order-created', 3, 10);
    expect(await checkpoints.open('billing.order-created', 9, 10)).toBe(a);
    await checkpoints.open('audit', 0, 10);
    expect((await checkpoints.consumerIds()).sort()).toEqual(['audit', 'billing.order-created']);
    await checkpoints.delete('audit');
    expect(existsSync(join(dir(), 'checkpoints', 'audit.checkpoint'))).toBe(false);
    await checkpoints.close();
    const reopened = await CheckpointDirectory.open(dir(), journal);
    expect((await reopened.open('billing.order-created', 0, 10)).offset).toBe(3);
    await reopened.close();
  });

  it('refuses consumer ids that are not safe file names', async () => {
    const checkpoints = await CheckpointDirectory.open(dir(), journal);
    expect(() => checkpoints.open('../x', 0, 10)).toThrow(InvalidConsumerIdError);
    expect(() => checkpoints.open('..', 0, 10)).toThrow(InvalidConsumerIdError);
    await checkpoints.close();
  });
});
