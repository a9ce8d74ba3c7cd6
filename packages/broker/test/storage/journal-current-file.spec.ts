import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { WRITE_RECOVERY_DELAY_MS } from '../../src/storage/journal/journal';
import { scanJournal } from '../../src/storage/journal/journal-scanner';
import { StorageUnavailableError } from '../../src/storage/storage.errors';
import type { TopicQueue } from '../../src/storage/topic-queue';
import { Crash } from './crash-copy';
import { multiTopicGroup, useCrashScenario, writeHistory } from './crash-scenario';
import { ioError } from './io-spy';
import { crashWhileCreatingJournalFile, failOneJournalWrite } from './journal-file-points';
import { bootContainer } from './recovered-state';

// The failures are provoked and recovery reports what it repairs; all expected here.
Logger.overrideLogger(false);

/** The sequence numbers of the records in the journal files on disk. */
async function recordsOnDisk(dataDir: string): Promise<number[]> {
  return (await scanJournal(join(dataDir, 'journal'))).records.map((record) => record.seq);
}

/**
 * The journal file records are being written to must never be deleted: acknowledged commits written to a deleted
 * (still open) file are in no journal file, and a power loss before the next flush loses them.
 */
describe('the journal file being written is never deleted', () => {
  const scenario = useCrashScenario();

  it('after a failed first record of the file, recovered after the delay (the new file takes the same name)', async () => {
    await failOneJournalWrite(scenario);
    await scenario.ledger.commit(multiTopicGroup(scenario));
    await scenario.container.journal.flush();
    await scenario.ledger.commit(multiTopicGroup(scenario));
    expect(await recordsOnDisk(scenario.dataDir)).toContain(scenario.container.journal.lastSeq);
  });

  it('after a rotation whose directory fsync failed was retried after the delay', async () => {
    await writeHistory(scenario);
    await failOneJournalWrite(scenario);
    const probe = await fsp.open(scenario.dataDir, 'r');
    const nodeFileHandle = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    // The next directory fsync (the one that makes the new journal file's name durable) fails.
    jest.spyOn(nodeFileHandle, 'sync').mockImplementationOnce(() => Promise.reject(ioError('EIO', 'fsync')));
    await expect(scenario.ledger.commit(multiTopicGroup(scenario))).rejects.toThrow(StorageUnavailableError);
    jest.spyOn(Date, 'now').mockReturnValue(Date.now() + WRITE_RECOVERY_DELAY_MS + 1);
    await scenario.ledger.commit(multiTopicGroup(scenario));
    await scenario.container.journal.flush();
    await scenario.ledger.commit(multiTopicGroup(scenario));
    expect(await recordsOnDisk(scenario.dataDir)).toContain(scenario.container.journal.lastSeq);
  });

  it('by a restart after a crash that left the newest journal file without a record (a rotation cut short)', async () => {
    await writeHistory(scenario);
    await failOneJournalWrite(scenario);
    const crashed = crashWhileCreatingJournalFile(scenario, scenario.dataDir, 'no record is in it yet');
    await scenario.ledger.commit(multiTopicGroup(scenario));
    const crash = crashed() as Crash;
    const restarted = await bootContainer(crash.dir);
    try {
      await (restarted.get('alpha') as TopicQueue).offer(Buffer.from('after the restart'));
      expect(await recordsOnDisk(crash.dir)).toContain(restarted.journal.lastSeq);
    } finally {
      await restarted.onApplicationShutdown();
    }
  });
});
