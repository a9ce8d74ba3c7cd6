import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKPOINT_DAMAGES, DISPATCHERS_FILE_DAMAGES } from '../src/faults/state-file-damage';
import { DESTRUCTIVE_DAMAGES, SEGMENT_DAMAGES } from '../src/faults/segment-damage';
import { BrokerRunner } from '../src/harness/broker-runner';
import { ScenarioRun } from '../src/harness/scenario-run';
import type { JournalDamageDone } from '../src/faults/journal-damage';
import { DamagedRoot, DamageOutcome } from '../src/scenarios/corruption';

const run = new ScenarioRun('corruption', 3, 'Corruption (bit flips, torn and garbage tails, deleted and damaged files)');
const variants = Array.from({ length: run.sizes.corruptionVariants }, (_, i) => i);
const perTopic = run.sizes.corruptionMessagesPerTopic;
const outcomes: DamageOutcome[] = [];
/** Appended to the damage names of the root whose journal still held the damaged entries. */
const JOURNALED = ' (journal held it)';
/** Topics filled before the journal damage, and records damaged (bit flips in the middle of the journal). */
const JOURNAL_DAMAGE = 'journal-record-crc';
const JOURNAL_DAMAGE_TOPICS = 6;
const JOURNAL_DAMAGED_RECORDS = 2;
const clearRefusals: string[] = [];
let failure: unknown;

/** The requirements of one damage, over its variants. */
function expectIntact(damage: string): void {
  const mine = outcomes.filter((outcome) => outcome.damage === damage);
  if (mine.length === 0) throw new Error(`${damage} was not applied`);
  const sum = (key: keyof DamageOutcome) => mine.reduce((total, outcome) => total + (outcome[key] as number), 0);
  run.expectZero(
    `${damage}`,
    {
      intactEntriesLost: sum('intactLost'),
      journaledEntriesNotRestored: sum('journaledLost'),
      intactEntriesGoneFromFiles: sum('intactLostOnDisk'),
      garbageServed: sum('garbageServed'),
      offsetsReused: sum('offsetsReused'),
      publishAfterRecoveryFailed: sum('newMessageProblems'),
      damagedCheckpointsNotRestartedAt0: sum('checkpointNotRestarted'),
      damagedCheckpointsNotWarnedAbout: sum('checkpointDamageUnreported'),
    },
    mine.flatMap((outcome) => outcome.problems).slice(0, 15),
  );
}

/** {@link expectIntact}, keeping the first failure for the report. */
function expectIntactRemembered(damage: string): void {
  try {
    expectIntact(damage);
  } catch (error) {
    failure ??= error;
    throw error;
  }
}

afterAll(() => {
  const total = (key: keyof DamageOutcome) => outcomes.reduce((sum, outcome) => sum + (outcome[key] as number), 0);
  run.figure('damage kinds × variants (one topic each)', `${new Set(outcomes.map((o) => o.damage)).size} × ${variants.length}`);
  run.figure('acknowledged entries in damaged topics', total('entries'));
  run.figure('entries whose bytes a damage touched', total('touched'));
  run.figure('of those, entries the journal still held (above its last FLUSHED) when damaged', total('journaled'));
  run.figure('journal-held entries not restored by the replay', total('journaledLost'), 0);
  run.figure('intact entries lost to corruption (not served at their offset)', total('intactLost'), 0);
  run.figure('intact entries gone from the files after recovery', total('intactLostOnDisk'), 0);
  run.figure('garbage served (anything but the acknowledged message at its offset)', total('garbageServed'), 0);
  run.figure('publishes after recovery given an intact entry’s offset', total('offsetsReused'), 0);
  run.figure('publishes after recovery refused or never pushed', total('newMessageProblems'), 0);
  run.figure('damaged checkpoints: offsets not redelivered from 0 after the restart', total('checkpointNotRestarted'), 0);
  run.figure('damaged checkpoints the broker did not warn about (of those that must warn)', total('checkpointDamageUnreported'), 0);
  for (const damage of new Set(outcomes.map((outcome) => outcome.damage))) {
    const mine = outcomes.filter((outcome) => outcome.damage === damage);
    const sum = (key: keyof DamageOutcome) => mine.reduce((total, outcome) => total + (outcome[key] as number), 0);
    run.figure(
      `${damage}: touched / intact not served / intact gone from the files / garbage served`,
      `${sum('touched')} / ${sum('intactLost')} / ${sum('intactLostOnDisk')} / ${sum('garbageServed')}`,
    );
  }
  run.figure('damaged dispatchers.json refusing start-up with a clear message', clearRefusals.length, DISPATCHERS_FILE_DAMAGES.length);
  run.finish(failure);
});

/**
 * Fills `root`, damages it, restarts the broker, requires it to start (`refused` says what it must survive) and
 * exercises it; the outcomes join the report. The root is closed whatever happens.
 */
async function damageAndRestart(root: DamagedRoot, fill: () => Promise<void>, refused: string): Promise<void> {
  try {
    await fill();
    const start = await root.restart();
    if (!start.started) run.failWith(`The broker refused to start after ${refused}`, [start.output.slice(-2000)]);
    await root.exercise();
    outcomes.push(...root.outcomes());
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    await root.close();
  }
}

describe('corruption: damage to closed and open segments, indexes, checkpoints', () => {
  const root = new DamagedRoot(run, 'recoverable');

  beforeAll(() =>
    damageAndRestart(
      root,
      async () => {
        for (const damage of SEGMENT_DAMAGES) for (const variant of variants) root.topicFor(damage.name, variant);
        for (const damage of CHECKPOINT_DAMAGES) for (const variant of variants) root.topicFor(damage.name, variant, 'ckpt');
        await root.build(perTopic);
        root.damage(SEGMENT_DAMAGES);
        root.damageCheckpoints();
      },
      'recoverable damage',
    ),
  );

  it.each(SEGMENT_DAMAGES.map((damage) => [damage.name, damage.describe]))(
    '%s (%s): every intact entry is served at its offset, nothing else is',
    (name) => expectIntactRemembered(name),
  );

  it.each(CHECKPOINT_DAMAGES.map((damage) => [damage.name, damage.describe]))(
    '%s (%s): the consumer restarts at offset 0 and receives every message again (redelivery, never skipping)',
    (name) => expectIntactRemembered(name),
  );
});

describe('corruption: damage to entries the journal still holds (the broker SIGKILLed after filling)', () => {
  const root = new DamagedRoot(run, 'journaled', 'sigkill', JOURNALED);

  beforeAll(() =>
    damageAndRestart(
      root,
      async () => {
        for (const damage of SEGMENT_DAMAGES) for (const variant of variants) root.topicFor(damage.name, variant, 'journaled');
        await root.build(perTopic);
        root.damage(SEGMENT_DAMAGES);
      },
      'damage the journal covers',
    ),
  );

  it.each(SEGMENT_DAMAGES.map((damage) => [damage.name, damage.describe]))(
    '%s (%s): every entry the journal held is restored, every intact entry is served, nothing else is',
    (name) => expectIntactRemembered(`${name}${JOURNALED}`),
  );
});

describe('corruption: bit rot in the middle of the journal, then the topic files cut back to what was flushed', () => {
  const root = new DamagedRoot(run, 'journal-damage', 'sigkill');
  let done: JournalDamageDone | undefined;

  beforeAll(() =>
    damageAndRestart(
      root,
      async () => {
        for (let topic = 0; topic < JOURNAL_DAMAGE_TOPICS; topic++) root.topicFor(JOURNAL_DAMAGE, topic, 'jdamage');
        await root.build(perTopic);
        done = root.damageJournal(JOURNAL_DAMAGED_RECORDS);
      },
      'damage in the middle of its journal',
    ),
  );

  it('every entry of an intact record is rebuilt from the journal; the damaged records’ entries are skipped, never garbage', () => {
    try {
      run.figure(
        'journal damage: records above the last FLUSHED / records damaged / entries they held',
        `${done?.unflushedRecords ?? 0} / ${done?.damaged.length ?? 0} / ${[...(done?.touched.values() ?? [])].reduce((n, set) => n + set.size, 0)}`,
      );
      run.expectThat(
        (done?.damaged.length ?? 0) > 0,
        'The journal held too few records above its last FLUSHED to damage one in the middle',
      );
    } catch (error) {
      failure ??= error;
      throw error;
    }
    expectIntactRemembered(JOURNAL_DAMAGE);
  });
});

describe('corruption: a deleted data file', () => {
  const root = new DamagedRoot(run, 'destructive');
  let start: { started: true } | { started: false; output: string } | undefined;

  beforeAll(async () => {
    try {
      for (const damage of DESTRUCTIVE_DAMAGES) for (const variant of variants) root.topicFor(damage.name, variant);
      await root.build(perTopic);
      root.damage(DESTRUCTIVE_DAMAGES);
      start = await root.restart();
      if (start.started) {
        await root.exercise();
        outcomes.push(...root.outcomes());
        run.note('With a segment’s data file deleted the broker started; the figures above include those topics.');
      } else {
        run.note(`With a segment’s data file deleted the broker refused to start: ${lastLine(start.output)}`);
      }
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      await root.close();
    }
  });

  it('either starts and serves every other entry and no garbage, or refuses to start naming the damage', () => {
    try {
      if (start?.started) {
        for (const damage of DESTRUCTIVE_DAMAGES) expectIntact(damage.name);
        return;
      }
      const output = start?.output ?? '';
      run.expectThat(
        /code 1, signal null/.test(output) && /failed to start/i.test(output) && /destroy|\.mmm|segment/i.test(output),
        'The broker neither started nor named the missing file: a refusal must exit 1 and name the damage',
        [lastLine(output)],
      );
    } catch (error) {
      failure ??= error;
      throw error;
    }
  });
});

describe('corruption: a damaged dispatchers.json', () => {
  it.each(DISPATCHERS_FILE_DAMAGES.map((damage) => [damage.name, damage]))(
    '%s: start-up stops with exit code 1 and a message naming dispatchers.json',
    async (name, damage) => {
      const dir = join(run.workDir, 'dispatchers', name.replace(/\W+/g, '-'));
      const rootDir = join(dir, 'data');
      mkdirSync(rootDir, { recursive: true });
      const valid = JSON.stringify([{ consumerId: 'a', host: 'http://127.0.0.1:9', pattern: '**' }]);
      writeFileSync(join(rootDir, 'dispatchers.json'), damage.content(valid));
      const runner = new BrokerRunner(rootDir, join(dir, 'logs'));
      try {
        let output = '';
        try {
          await runner.start();
          await runner.stop();
          output = 'the broker started';
        } catch (error) {
          output = (error as Error).message;
        }
        const clear = /code 1, signal null/.test(output) && /dispatchers\.json/.test(output);
        if (clear) clearRefusals.push(name);
        run.expectThat(clear, `A dispatchers.json with ${name} did not stop start-up clearly`, [lastLine(output)]);
      } catch (error) {
        failure ??= error;
        throw error;
      } finally {
        if (runner.running) await runner.kill();
      }
    },
  );
});

function lastLine(output: string): string {
  const lines = output.split('\n').filter((line) => /error|fail|exited/i.test(line));
  return (lines.slice(-2).join(' / ') || output.slice(-300)).replace(/\x1b\[[0-9;]*m/g, '').slice(0, 400);
}
