import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { useTempDir, waitFor } from '@mmmq/test-support';
import { PURGE_MARK_FILE } from '../../src/storage/purge-mark';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { NO_AUTOMATIC_FLUSH } from './recovered-state';

const TOPIC = Topic.of('__dlq.billing');

describe("a purge mark above its topic's recovered tail", () => {
  const dir = useTempDir('mmmq-purge-repair-');
  const root = () => join(dir(), 'broker');
  const markFile = () => join(root(), 'topics', TOPIC.name, PURGE_MARK_FILE);

  async function opened(): Promise<TopicQueueContainer> {
    const container = TopicQueueContainer.standalone(persistenceOptions(root(), NO_AUTOMATIC_FLUSH));
    await container.whenRecovered();
    return container;
  }

  it('is lowered to the tail at open, durably, so entries appended afterwards are not hidden below it', async () => {
    let container = await opened();
    let queue = await container.getOrCreate(TOPIC);
    for (const n of [0, 1, 2]) await queue.offer(Buffer.from(`letter ${n}`));
    await queue.purgeTo(3);
    await container.onApplicationShutdown();
    // Acknowledged entries lost to damage would leave the mark above the tail; a hand-written mark does the same here.
    writeFileSync(markFile(), '100\n');

    container = await opened();
    queue = await container.getOrCreate(TOPIC);
    await waitFor(() => readFileSync(markFile(), 'utf8') === '3\n', { message: 'the lowered mark to be written' });
    const offsets = [await queue.offer(Buffer.from('letter 3')), await queue.offer(Buffer.from('letter 4'))];

    expect(queue.purgedBelow).toBe(3);
    expect(queue.startOffset).toBe(3);
    expect(offsets).toEqual([3, 4]);
    expect((await queue.peek(3))?.toString()).toBe('letter 3');
    await container.onApplicationShutdown();
  });
});
