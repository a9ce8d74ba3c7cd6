import { DeduplicationRestoreError } from '../../src/deduplication/deduplication.errors';
import { DeduplicationWindow } from '../../src/deduplication/deduplication-window';
import { restoreWindow } from '../../src/deduplication/restore-window';
import { encodeEnvelope } from '../../src/format/message-envelope';
import type { TopicQueue } from '../../src/storage';

const TOPIC = 'order.created';
const WINDOW_MS = 60_000;

/** A topic log of `count` messages `id-0`… published just now, whose reads below `failBelow` fail (EIO). */
function topicLog(count: number, failBelow = 0): TopicQueue {
  const publishedAt = Date.now();
  const entries = Array.from({ length: count }, (_, n) =>
    encodeEnvelope({ id: `id-${n}`, topic: TOPIC, publishedAt, headers: {}, content: Buffer.from(`{"n":${n}}`) }),
  );
  const peekMany = (offset: number, max: number): Promise<Buffer[]> =>
    offset < failBelow ? Promise.reject(new Error('EIO: i/o error, read')) : Promise.resolve(entries.slice(offset, offset + max));
  return { name: TOPIC, startOffset: 0, tailOffset: count, peekMany } as unknown as TopicQueue;
}

describe('restoreWindow', () => {
  it('remembers the id and offset of every message within the window', async () => {
    const window = new DeduplicationWindow(WINDOW_MS, 10_000);
    await restoreWindow(topicLog(600), window);
    expect(window.stats.remembered).toBe(600);
    expect(window.lookup('id-0', Date.now())).toMatchObject({ offset: 0 });
    expect(window.lookup('id-599', Date.now())).toMatchObject({ offset: 599 });
  });

  it('keeps the ids read before a read failed, and says how far it got', async () => {
    const window = new DeduplicationWindow(WINDOW_MS, 10_000);
    // Read newest first in chunks of 256: offsets 344..599 are read, the next chunk (88..343) fails.
    const failed = await restoreWindow(topicLog(600, 300), window).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(DeduplicationRestoreError);
    expect(failed).toMatchObject({ topic: TOPIC, restored: 256, readBackTo: 344 });
    expect((failed as Error).message).toBe(
      'Topic order.created: reading its log back for de-duplication failed below offset 344 (EIO: i/o error, read); ' +
        'the 256 id(s) read from there to the tail are remembered, re-publishes of older messages within the window are ' +
        'stored again',
    );
    expect(window.stats.remembered).toBe(256);
    expect(window.lookup('id-599', Date.now())).toMatchObject({ offset: 599 });
    expect(window.lookup('id-344', Date.now())).toMatchObject({ offset: 344 });
    expect(window.lookup('id-343', Date.now())).toBeUndefined();
  });
});
