import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { DEFAULT_FLUSH_BYTES, DEFAULT_FLUSH_INTERVAL_MS, TopicQueueContainer } from '@mmmq/broker';
import { Logger } from '@nestjs/common';
import { checkProperty } from '../src/fuzz/check-property';
import { applyDamage, buildTopic, damage, topicShape } from '../src/fuzz/segment-builder';
import { ScenarioRun } from '../src/harness/scenario-run';

const run = new ScenarioRun('fuzz-recovery', 7, 'Fuzzing: recovery of damaged segments');
const TOPIC = 'fuzz.recovery';
let failure: unknown;
const totals = { cases: 0, entries: 0, touched: 0, intactLost: 0, garbageServed: 0, offsetsReused: 0 };
/** The figures count the runs up to the first failure, not fast-check's shrinking runs after it. */
let counting = true;

beforeAll(() => Logger.overrideLogger(false)); // recovery logs a WARN per repaired segment: expected here
afterAll(() => {
  Logger.overrideLogger(new Logger());
  run.figure('damaged topics recovered', totals.cases);
  run.figure('entries written / touched by the damage', `${totals.entries} / ${totals.touched}`);
  run.figure('intact entries lost to corruption (unreadable or moved)', totals.intactLost, 0);
  run.figure('garbage served (a read returning other bytes than were written at that offset)', totals.garbageServed, 0);
  run.figure('appends after recovery given an intact entry’s offset', totals.offsetsReused, 0);
  run.finish(failure);
});

/**
 * Segments written with the checker's own encoder, damaged, then opened by the broker's real storage
 * (TopicQueueContainer: the recovery that runs at boot), and read back through `peek` and `peekMany` (the
 * delivery path). Every entry whose bytes the damage did not touch must read back identical at its offset;
 * no read may return bytes that were not written at that offset; an append must not take an intact offset.
 */
describe('recovery of damaged segments', () => {
  it('keeps every intact entry at its offset and serves no garbage, whatever the damage', async () => {
    try {
      await checkProperty(
        run,
        'recovery, random segments and damage',
        fc.asyncProperty(topicShape, fc.array(damage, { minLength: 1, maxLength: 2 }), async (shape, damages) => {
          const rootDir = mkdtempSync(join(run.workDir, 'case-'));
          try {
            const topic = buildTopic(rootDir, TOPIC, shape);
            const touched = new Set<number>();
            for (const one of damages) for (const offset of applyDamage(topic, one)) touched.add(offset);
            const found = await recoverAndRead(rootDir, topic.payloads);
            const lost = topic.payloads.map((_, offset) => offset).filter((offset) => !touched.has(offset) && !found.intact.has(offset));
            const reused = found.appendedAt !== undefined && !touched.has(found.appendedAt) && found.appendedAt < topic.payloads.length;
            if (counting) {
              totals.cases++;
              totals.entries += topic.payloads.length;
              totals.touched += touched.size;
              totals.intactLost += lost.length;
              totals.garbageServed += found.garbage.length;
              if (reused) totals.offsetsReused++;
              counting = lost.length === 0 && found.garbage.length === 0 && !reused;
            }
            if (lost.length > 0) throw new Error(`intact entries ${lost.join(', ')} were not served (touched: ${[...touched].join(', ')})`);
            if (found.garbage.length > 0) throw new Error(`served other bytes at offsets ${found.garbage.join(', ')}`);
            if (reused) throw new Error(`an append after recovery took offset ${found.appendedAt}, an intact entry's`);
          } finally {
            rmSync(rootDir, { recursive: true, force: true });
          }
        }),
        run.sizes.recoveryFuzzRuns,
      );
    } catch (error) {
      failure = error;
      throw error;
    }
  });
});

/** Opens the topic with the broker's storage, reads every offset two ways, appends one entry. */
async function recoverAndRead(
  rootDir: string,
  written: Buffer[],
): Promise<{ intact: Set<number>; garbage: number[]; appendedAt?: number }> {
  const container = TopicQueueContainer.standalone({
    rootDir,
    segmentMaxBytes: 64 * 1024 * 1024,
    flushIntervalMs: DEFAULT_FLUSH_INTERVAL_MS,
    flushBytes: DEFAULT_FLUSH_BYTES,
  });
  const intact = new Set<number>();
  const garbage = new Set<number>();
  try {
    const queue = await container.getOrCreate(Topic.of(TOPIC));
    const end = Math.max(queue.tailOffset, written.length);
    for (let offset = 0; offset < end; offset++) {
      const payload = await queue.peek(offset).catch(() => null);
      if (!payload) continue;
      if (written[offset]?.equals(payload)) intact.add(offset);
      else garbage.add(offset);
    }
    for (let offset = 0; offset < queue.tailOffset;) {
      const batch = await queue.peekMany(offset, 7);
      if (batch.length === 0) break;
      batch.forEach((entry, i) => {
        if (Buffer.isBuffer(entry) && !written[offset + i]?.equals(entry)) garbage.add(offset + i);
      });
      offset += batch.length;
    }
    const appended = Buffer.from(`{"id":"after","topic":"${TOPIC}","publishedAt":2,"headers":{},"content":"after"}`);
    const appendedAt = await queue.offer(appended);
    if (!(await queue.peek(appendedAt))?.equals(appended)) garbage.add(appendedAt);
    return { intact, garbage: [...garbage], appendedAt };
  } finally {
    await container.onApplicationShutdown();
  }
}
