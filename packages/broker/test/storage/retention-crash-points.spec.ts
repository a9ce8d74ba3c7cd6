import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { Crash, crashCopy } from './crash-copy';
import { IoSpy } from './io-spy';
import { bootContainer, NO_AUTOMATIC_FLUSH } from './recovered-state';

/** Small segments: 30 entries span several. */
const SEGMENT_MAX_BYTES = 64;
const entry = (n: number) => Buffer.from(`message-${String(n).padStart(3, '0')}`);

/** Every entry from the topic's start offset on, as text. */
async function entriesFromStart(queue: TopicQueue): Promise<string[]> {
  const entries: string[] = [];
  for (let offset = queue.startOffset; offset < queue.tailOffset;) {
    const batch = await queue.peekMany(offset, 1000);
    for (const read of batch) entries.push(read instanceof Error ? read.name : read.toString());
    offset += batch.length;
  }
  return entries;
}

describe('a crash at any point of a retention deletion', () => {
  let root: string;
  let spy: IoSpy;
  let container: TopicQueueContainer;
  const booted: TopicQueueContainer[] = [];

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'mmmq-retention-crash-'));
    spy = IoSpy.install();
    container = TopicQueueContainer.standalone(
      persistenceOptions(join(root, 'broker'), { ...NO_AUTOMATIC_FLUSH, segmentMaxBytes: SEGMENT_MAX_BYTES }),
    );
  });
  afterEach(async () => {
    await container.onApplicationShutdown();
    for (const other of booted.splice(0)) await other.onApplicationShutdown();
    jest.restoreAllMocks();
    rmSync(root, { recursive: true, force: true });
  });

  it('leaves a topic that recovers to a whole-segment start with every later entry, no orphan index, and appends on', async () => {
    const queue = await container.getOrCreate(Topic.of('alpha'));
    for (let n = 0; n < 30; n++) await queue.offer(entry(n));
    await container.journal.flush();
    // Committed, in the files' page cache and in the journal only: retention must leave their segments alone.
    for (let n = 30; n < 40; n++) await queue.offer(entry(n));
    expect(queue.durableEnd).toBe(30);
    const topicDir = join(root, 'broker', 'topics', 'alpha');
    const crashes: Array<{ label: string; crash: Crash }> = [];
    let point = 0;
    spy.onRm((path, proceed) => {
      if (!path.startsWith(topicDir)) return undefined;
      crashes.push({
        label: `before removing ${path.slice(topicDir.length + 1)}`,
        crash: crashCopy(join(root, 'broker'), join(root, `crash-${point++}`), spy),
      });
      return proceed();
    });

    const removed = await queue.removeOldest(() => true);

    expect(removed.length).toBeGreaterThan(1);
    expect(removed[removed.length - 1].endOffset).toBeLessThanOrEqual(30);
    expect(queue.startOffset).toBe(removed[removed.length - 1].endOffset);
    crashes.push({ label: 'after the deletion', crash: crashCopy(join(root, 'broker'), join(root, `crash-${point++}`), spy) });
    expect(crashes).toHaveLength(2 * removed.length + 1);
    const starts = [0, ...removed.map((segment) => segment.endOffset)];

    for (const { label, crash } of crashes) {
      const recovered = await bootContainer(crash.dir, { ...NO_AUTOMATIC_FLUSH, segmentMaxBytes: SEGMENT_MAX_BYTES });
      booted.push(recovered);
      const topic = recovered.get('alpha')!;
      expect({ label, start: starts.includes(topic.startOffset), tail: topic.tailOffset }).toEqual({ label, start: true, tail: 40 });
      expect(await entriesFromStart(topic)).toEqual(
        Array.from({ length: 40 - topic.startOffset }, (_, i) => entry(topic.startOffset + i).toString()),
      );
      const files = readdirSync(join(crash.dir, 'topics', 'alpha'));
      const orphans = files.filter((name) => name.endsWith('.idx') && !files.includes(name.replace(/\.idx$/, '.mmm')));
      expect({ label, orphans }).toEqual({ label, orphans: [] });
      expect(await topic.offer(Buffer.from('after'))).toBe(40);
    }
  });

  it('removes nothing the last flush did not make durable, and never the tail segment', async () => {
    const queue = await container.getOrCreate(Topic.of('beta'));
    for (let n = 0; n < 20; n++) await queue.offer(entry(n));
    expect(await queue.removeOldest(() => true)).toEqual([]);
    expect(queue.startOffset).toBe(0);

    await container.journal.flush();
    const removed = await queue.removeOldest(() => true);
    expect(removed.length).toBeGreaterThan(0);
    expect(queue.chain.segmentCount).toBe(1);
    expect(queue.startOffset).toBe(removed[removed.length - 1].endOffset);
    expect(queue.tailOffset).toBe(20);
  });
});
