import { Logger } from '@nestjs/common';
import * as journalFileModule from '../../src/storage/journal/journal-file';
import { JOURNAL_HEADER_BYTES } from '../../src/storage/journal/journal-file';
import { Crash } from './crash-copy';
import { expectRecovery, multiTopicGroup, TOPICS, useCrashScenario, writeHistory } from './crash-scenario';
import { crashWhileCreatingJournalFile, failOneJournalWrite, journalFiles, MOMENTS } from './journal-file-points';
import { bootContainer } from './recovered-state';

// Recovery reports the torn tails and repairs these crashes leave, and the failures are provoked; all expected here.
Logger.overrideLogger(false);

/**
 * JOURNAL_FILE_MAX_BYTES is a module constant, not an option: the compiled module reads it from its exports on every
 * write, so jest.replaceProperty makes small journal files (several per test). Recovery runs with the real size.
 */
const SMALL_JOURNAL_FILE_BYTES = 150;

describe('journal crash points around journal files (a copy of the data directory taken inside the I/O call is the crash)', () => {
  const scenario = useCrashScenario();

  describe('journal files rotated by size', () => {
    let fileSize: jest.ReplaceProperty<number>;
    beforeEach(() => {
      fileSize = jest.replaceProperty(journalFileModule, 'JOURNAL_FILE_MAX_BYTES', SMALL_JOURNAL_FILE_BYTES);
    });

    it.each([1, 2])('between the flush and the deletion of covered journal file #%i: nothing acknowledged is lost', async (which) => {
      await writeHistory(scenario);
      expect(journalFiles(scenario).length).toBeGreaterThan(2);
      const expected = scenario.ledger.expected(TOPICS);
      let crash: Crash | undefined;
      let deletions = 0;
      const remove = scenario.spy.onRm((path) => {
        if (!path.endsWith('.journal') || ++deletions < which) return undefined;
        remove();
        crash = scenario.crash('deleting');
        return undefined;
      });
      await scenario.container.journal.flush();
      fileSize.restore();
      await expectRecovery(scenario, crash as Crash, expected);
    });

    it.each(MOMENTS)('mid rotation by size (%s): nothing acknowledged is lost, the group being committed is absent', async (moment) => {
      await writeHistory(scenario);
      const expected = scenario.ledger.expected(TOPICS);
      fileSize.replaceValue(1);
      const crash = crashWhileCreatingJournalFile(scenario, scenario.dataDir, moment);
      await scenario.ledger.commit(multiTopicGroup(scenario));
      fileSize.restore();
      await expectRecovery(scenario, crash() as Crash, expected);
    });

    it('mid journal append of the first record of a new journal file: the torn group is absent, nothing acknowledged is lost', async () => {
      await writeHistory(scenario);
      const expected = scenario.ledger.expected(TOPICS);
      fileSize.replaceValue(1);
      let crash: Crash | undefined;
      const remove = scenario.spy.onWrite((path, bytes, position, proceed) => {
        if (!path.endsWith('.journal') || position !== JOURNAL_HEADER_BYTES) return undefined;
        remove();
        return (async () => {
          await proceed(bytes.subarray(0, bytes.length / 2));
          crash = scenario.crash('torn-first-record');
          await proceed(bytes.subarray(bytes.length / 2), position + bytes.length / 2);
        })();
      });
      await scenario.ledger.commit(multiTopicGroup(scenario));
      fileSize.restore();
      await expectRecovery(scenario, crash as Crash, expected);
    });
  });

  describe('journal files rotated after a write failure', () => {
    it('between the flush and the deletion of the journal file the failure rotated away: nothing acknowledged is lost, nothing NACKed appears', async () => {
      await writeHistory(scenario);
      await failOneJournalWrite(scenario);
      await scenario.ledger.commit(multiTopicGroup(scenario));
      await scenario.ledger.fill(scenario.queues, 1);
      expect(journalFiles(scenario).length).toBe(2);
      const expected = scenario.ledger.expected(TOPICS);
      let crash: Crash | undefined;
      const remove = scenario.spy.onRm((path) => {
        if (!path.endsWith('.journal')) return undefined;
        remove();
        crash = scenario.crash('deleting');
        return undefined;
      });
      await scenario.container.journal.flush();
      await expectRecovery(scenario, crash as Crash, expected);
    });

    it.each(MOMENTS)('mid rotation after a write failure (%s): nothing acknowledged is lost, nothing NACKed appears', async (moment) => {
      await writeHistory(scenario);
      await failOneJournalWrite(scenario);
      const expected = scenario.ledger.expected(TOPICS);
      const crash = crashWhileCreatingJournalFile(scenario, scenario.dataDir, moment);
      await scenario.ledger.commit(multiTopicGroup(scenario));
      await expectRecovery(scenario, crash() as Crash, expected);
    });
  });

  describe('the journal file a restart opens', () => {
    it.each(MOMENTS)('crash while the restarted broker creates its journal file (%s): nothing acknowledged is lost', async (moment) => {
      await writeHistory(scenario);
      const expected = scenario.ledger.expected(TOPICS);
      const killed = scenario.crash('killed');
      scenario.spy.markDurable(killed.dir);
      const crash = crashWhileCreatingJournalFile(scenario, killed.dir, moment);
      const restarted = await bootContainer(killed.dir);
      await restarted.onApplicationShutdown();
      await expectRecovery(scenario, crash() as Crash, expected);
    });
  });
});
