import { join } from 'node:path';
import { Journal } from '../../src/storage/journal/journal';
import { recoverJournal, RecoveredTopic } from '../../src/storage/journal/journal-recovery';

/** An open journal in `{rootDir}/journal` that flushes only when asked (or on close). */
export async function openJournal(
  rootDir: string,
  openTopic: (name: string) => Promise<RecoveredTopic> = (name) => Promise.reject(new Error(`no topic ${name} here`)),
): Promise<Journal> {
  const journal = new Journal({ intervalMs: 3_600_000, bytes: Number.MAX_SAFE_INTEGER });
  await journal.open(await recoverJournal(join(rootDir, 'journal'), openTopic));
  return journal;
}
