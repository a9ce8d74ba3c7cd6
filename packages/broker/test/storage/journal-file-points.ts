import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WRITE_RECOVERY_DELAY_MS } from '../../src/storage/journal/journal';
import { JOURNAL_HEADER_BYTES } from '../../src/storage/journal/journal-file';
import { StorageUnavailableError } from '../../src/storage/storage.errors';
import { Crash, crashCopy } from './crash-copy';
import { CrashScenario, multiTopicGroup } from './crash-scenario';
import { ioError } from './io-spy';

/** The `.journal` files of the scenario's broker. */
export const journalFiles = (scenario: CrashScenario) =>
  readdirSync(join(scenario.dataDir, 'journal')).filter((name) => name.endsWith('.journal'));

/** Makes the next journal fsync fail; the group it covers is NACKed and the journal refuses writes for a while. */
export async function failOneJournalWrite(scenario: CrashScenario): Promise<void> {
  const remove = scenario.spy.onSync((path) => {
    if (!path.endsWith('.journal')) return undefined;
    remove();
    return Promise.reject(ioError('EIO', 'fdatasync'));
  });
  await expect(scenario.ledger.commit(multiTopicGroup(scenario))).rejects.toThrow(StorageUnavailableError);
  jest.spyOn(Date, 'now').mockReturnValue(Date.now() + WRITE_RECOVERY_DELAY_MS + 1);
}

/** When, during the creation of a new journal file, the crash copy is taken. */
export type Moment =
  'the new file is still empty' | 'half its header is written' | 'its header is written, not fsync' | 'no record is in it yet';

/** Arms a crash copy at `moment` of the next journal file created under `dir`. */
export function crashWhileCreatingJournalFile(scenario: CrashScenario, dir: string, moment: Moment): () => Crash | undefined {
  let crash: Crash | undefined;
  const copy = () => (crash = crashCopy(dir, `${dir}-crash`, scenario.spy));
  const remove = scenario.spy.onWrite((path, bytes, position, proceed) => {
    if (!path.startsWith(dir) || !path.endsWith('.journal')) return undefined;
    if (position !== (moment === 'no record is in it yet' ? JOURNAL_HEADER_BYTES : 0)) return undefined;
    remove();
    return (async () => {
      if (moment === 'half its header is written') await proceed(bytes.subarray(0, bytes.length / 2));
      if (moment === 'its header is written, not fsync') await proceed();
      copy();
      if (moment === 'half its header is written') await proceed(bytes.subarray(bytes.length / 2), position + bytes.length / 2);
      if (moment === 'the new file is still empty' || moment === 'no record is in it yet') await proceed();
    })();
  });
  return () => crash;
}

export const MOMENTS: Moment[] = [
  'the new file is still empty',
  'half its header is written',
  'its header is written, not fsync',
  'no record is in it yet',
];
