import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal } from '../../packages/broker/src/storage/journal/journal';
import type { CommitPart, JournalTopic } from '../../packages/broker/src/storage/journal/journal-commit';
import { recoverJournal } from '../../packages/broker/src/storage/journal/journal-recovery';
import { readJournal } from '../src/format/journal-reader';
import { ScenarioRun } from '../src/harness/scenario-run';
import { waitFor } from '@mmmq/test-support';
import { FAULT_POLL_MS } from '../src/harness/poll-interval';

/**
 * Whitebox: the power-loss scenario trusts the journal's FLUSHED ops (a topic is durable below its first APPEND
 * above the last FLUSHED seq P), so it cannot see a broker whose FLUSHED(P) claims more than its fsyncs covered.
 * This checks that claim where it is made: the broker's Journal, with topics that log every write and sync. A
 * FLUSHED(P) may be committed only after every entry of every record up to P was written to its topic and a sync
 * of that topic covered it (docs/storage.md, "flush").
 */
const FLUSHED = 4;
const TIMEOUT_MS = 5_000;
const run = new ScenarioRun('journal-flush', 8, 'Journal flush (whitebox: what a FLUSHED op claims)');
const totals = { flushes: 0, uncovered: 0 };
const failures: string[] = [];

afterAll(() => {
  run.figure('FLUSHED ops committed (size- and timer-triggered, over topics with slow writes)', totals.flushes);
  run.figure('FLUSHED ops claiming entries no sync had covered', totals.uncovered, 0);
  for (const failure of failures) run.note(failure);
  run.finish(failures.length > 0 ? new Error(failures[0]) : undefined);
});

/** A topic that records, in the shared event log, how many entries it held when each sync was called. */
class LoggingTopic implements JournalTopic {
  private written = 0;

  constructor(
    readonly name: string,
    private readonly events: string[],
    private readonly writeDelayMs: number,
  ) {}

  get writtenEnd(): number {
    return this.written;
  }

  async write(_frames: Buffer, starts: readonly number[]): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.writeDelayMs));
    this.written += starts.length;
    this.events.push(`write ${this.name} ${this.written}`);
  }

  async sync(): Promise<number> {
    this.events.push(`sync ${this.name} ${this.written}`);
    return 1;
  }

  publish(): void {}
  async cutBack(): Promise<void> {}
  writeFailed(): void {}
}

let rootDir: string;
const opened: Journal[] = [];

beforeEach(() => (rootDir = mkdtempSync(join(tmpdir(), 'mmmq-journal-flush-'))));
afterEach(async () => {
  for (const journal of opened.splice(0)) await journal.close().catch(() => undefined);
  rmSync(rootDir, { recursive: true, force: true });
});

/** An open journal whose FLUSHED commits are logged (with the seq they cover) once durable. */
async function openLogged(schedule: { intervalMs: number; bytes: number }, events: string[]): Promise<Journal> {
  const journal = new Journal(schedule);
  opened.push(journal);
  await journal.open(await recoverJournal(join(rootDir, 'journal'), () => Promise.reject(new Error('no topic to replay'))));
  const commit = journal.commit.bind(journal);
  journal.commit = (parts: readonly CommitPart[]) => {
    const committed = commit(parts);
    for (const part of parts) {
      if ('op' in part && part.op.kind === FLUSHED)
        void committed.then(() => events.push(`flushed ${part.op.kind === FLUSHED ? part.op.seq : ''}`));
    }
    return committed;
  };
  return journal;
}

/** Counts the claims for the report; the test then requires there are none. */
function tally(events: readonly string[], claims: readonly string[]): void {
  totals.flushes += events.filter((event) => event.startsWith('flushed')).length;
  totals.uncovered += claims.length;
  if (claims.length > 0) failures.push(`${claims[0]} (events: ${events.join(', ')})`);
}

/**
 * Every FLUSHED(P) in the log committed while some topic's syncs so far covered fewer entries than the records up
 * to P hold for it (read from the journal with the checker's decoder).
 */
function uncoveredClaims(events: readonly string[]): string[] {
  const records = readJournal(rootDir).records;
  const entriesUpTo = (seq: number) => {
    const entries = new Map<string, number>();
    for (const record of records) {
      if (record.seq > seq) break;
      for (const op of record.ops) if (op.kind === 'append') entries.set(op.topic, (entries.get(op.topic) ?? 0) + op.frames.length);
    }
    return entries;
  };
  const synced = new Map<string, number>();
  const claims: string[] = [];
  for (const event of events) {
    const [kind, name, count] = event.split(' ');
    if (kind === 'sync') synced.set(name, Math.max(synced.get(name) ?? 0, Number(count)));
    if (kind !== 'flushed') continue;
    for (const [topic, entries] of entriesUpTo(Number(name))) {
      if ((synced.get(topic) ?? 0) < entries)
        claims.push(`FLUSHED(${name}) committed when ${topic}'s syncs covered ${synced.get(topic) ?? 0} of its ${entries} entries`);
    }
  }
  return claims;
}

describe('journal flush (whitebox)', () => {
  it('a size-triggered flush claims only records whose topic writes it synced', async () => {
    const events: string[] = [];
    const journal = await openLogged({ intervalMs: 3_600_000, bytes: 1 }, events);
    const topic = new LoggingTopic('a', events, 5);
    for (let i = 0; i < 3; i++) await journal.commit([{ topic, payloads: [Buffer.from(`{"n":${i}}`)] }]);
    await waitFor(() => events.some((event) => event.startsWith('flushed')), {
      deadlineMs: TIMEOUT_MS,
      message: 'a FLUSHED commit',
      pollMs: FAULT_POLL_MS,
    });
    await journal.flush();
    const claims = uncoveredClaims(events);
    tally(events, claims);
    expect({ claims, events }).toEqual({ claims: [], events });
  });

  it('a timer-triggered flush during a slow topic write claims only what it synced', async () => {
    const events: string[] = [];
    const journal = await openLogged({ intervalMs: 20, bytes: Number.MAX_SAFE_INTEGER }, events);
    const topic = new LoggingTopic('a', events, 120);
    for (let i = 0; i < 3; i++) await journal.commit([{ topic, payloads: [Buffer.from(`{"n":${i}}`)] }]);
    await waitFor(() => events.filter((event) => event.startsWith('flushed')).length >= 2, {
      deadlineMs: TIMEOUT_MS,
      message: 'two FLUSHED commits',
      pollMs: FAULT_POLL_MS,
    });
    const claims = uncoveredClaims(events);
    tally(events, claims);
    expect({ claims, events }).toEqual({ claims: [], events });
  });
});
