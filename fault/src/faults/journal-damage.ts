import { readFileSync, writeFileSync } from 'node:fs';
import { readDataRoot } from '../format/data-root-reader';
import { RECORD_HEADER_BYTES } from '../format/journal-format';
import { appendedEntries, readJournal } from '../format/journal-reader';
import type { Random } from '../random';
import { durableFloors } from './durable-floors';
import { cutToFloors } from './power-loss';

/** What a journal damage did: the records it broke, the entries they held, and how many unflushed records there were. */
export interface JournalDamageDone {
  /** Sequence numbers of the damaged records. */
  damaged: number[];
  /** Per topic, the offsets the damaged records held (they may be lost: skipped at delivery, never garbage). */
  touched: Map<string, Set<number>>;
  /** Records above the last FLUSHED when the damage was done (the ones replay needs). */
  unflushedRecords: number;
}

/**
 * Bit rot in the middle of the journal of a SIGKILLed broker, then a power cut of the topic files: one bit flipped
 * in the payload of each of `count` records above the last FLUSHED (never the first or the last of them, never
 * two adjacent ones), then every topic file cut back to its durable floor (durable-floors.ts, the journal's last
 * record counted as durable). Recovery must find the intact records after each damaged one (docs/storage.md:
 * mid-journal damage is reported and skipped) and rebuild every topic from them.
 */
export function damageJournalRecords(rootDir: string, count: number, random: Random): JournalDamageDone {
  const journal = readJournal(rootDir);
  const unflushed = journal.records.filter((record) => record.seq > journal.flushedSeq);
  const candidates = unflushed.slice(1, -1).filter((_, i) => i % 2 === 0);
  const chosen = random.shuffle(candidates).slice(0, count);
  const touched = new Map<string, Set<number>>();
  for (const record of chosen) {
    const bytes = readFileSync(record.path);
    const at = random.int(record.start + RECORD_HEADER_BYTES + 12, record.end - 1);
    bytes[at] ^= 1 << random.int(0, 7);
    writeFileSync(record.path, bytes);
    for (const { topic, offset } of appendedEntries(record)) {
      const offsets = touched.get(topic) ?? new Set<number>();
      offsets.add(offset);
      touched.set(topic, offsets);
    }
  }
  const floors = durableFloors(journal, readDataRoot(rootDir), () => 'acknowledged');
  cutToFloors({ ...floors, files: floors.files.filter((file) => file.kind !== 'journal') }, random);
  return { damaged: chosen.map((record) => record.seq), touched, unflushedRecords: unflushed.length };
}
