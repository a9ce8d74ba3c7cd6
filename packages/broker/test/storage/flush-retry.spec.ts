import { Topic } from '@mmmq/core';
import { waitFor } from '@mmmq/test-support';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions, publish } from '../support/topic-fixture';
import { NO_AUTOMATIC_FLUSH } from './recovered-state';
import { useTempDir } from './temp-dir';

// The module objects themselves, so their functions can be spied on (an `import * as` namespace is read-only).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof import('node:fs');

/** What the kernel answers when the process has no descriptor left. */
function emfile(call: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EMFILE: too many open files, ${call}`), { code: 'EMFILE', syscall: call });
}

describe('a flush that fails for want of descriptors (EMFILE)', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer | undefined;

  afterEach(async () => {
    jest.restoreAllMocks();
    await container?.onApplicationShutdown();
    container = undefined;
  });

  it('is retried with backoff while publishes go on, and succeeds once descriptors are back, without a restart', async () => {
    container = TopicQueueContainer.standalone(persistenceOptions(dir(), NO_AUTOMATIC_FLUSH));
    await container.whenRecovered();
    const queue = await container.getOrCreate(Topic.of('orders'));
    await publish(queue, 'before');

    // Every open fails, as when the process is at RLIMIT_NOFILE: the flush cannot open the new topic's directory.
    let exhausted = true;
    const open = fs.promises.open;
    const openFailures = jest
      .spyOn(fs.promises, 'open')
      .mockImplementation((...args: Parameters<typeof open>) => (exhausted ? Promise.reject(emfile('open')) : open(...args)));
    await expect(container.journal.flush()).rejects.toThrow(/Cannot open the directory .*topics to fsync it/);
    expect(openFailures).toHaveBeenCalled();
    expect((await container.view()).flushRetrying).toBe(true);

    // Writes never stopped: the journal, which holds everything the flush did not cover, is the commit point.
    await publish(queue, 'while failing');
    expect(container.journal.refusing).toBe(false);
    const attempts = openFailures.mock.calls.length;
    await waitFor(() => openFailures.mock.calls.length > attempts, { message: 'the flush to be retried by itself' });

    exhausted = false;
    await waitFor(async () => !(await container!.view()).flushRetrying, { message: 'a retried flush to succeed' });
    expect(container.journal.flushed).toBeGreaterThan(0);
    await publish(queue, 'after');

    // A restart finds every acknowledged message.
    await container.onApplicationShutdown();
    container = TopicQueueContainer.standalone(persistenceOptions(dir(), NO_AUTOMATIC_FLUSH));
    await container.whenRecovered();
    const reopened = await container.getOrCreate(Topic.of('orders'));
    const contents = [];
    for (let offset = 0; offset < reopened.tailOffset; offset++) contents.push(String(await reopened.peek(offset)));
    expect(contents.map((payload) => JSON.parse(payload.slice(payload.indexOf('"content":') + 10, -1)))).toEqual([
      'before',
      'while failing',
      'after',
    ]);
  });

  it('still stops writes when an fsync itself fails (EIO): retrying that one could acknowledge lost pages', async () => {
    container = TopicQueueContainer.standalone(persistenceOptions(dir(), NO_AUTOMATIC_FLUSH));
    await container.whenRecovered();
    const queue = await container.getOrCreate(Topic.of('orders'));
    await container.journal.flush();
    await publish(queue, 'dirty');
    jest
      .spyOn(fs, 'fdatasync')
      .mockImplementation((_fd, callback) => callback(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));
    await expect(container.journal.flush()).rejects.toThrow();
    expect(container.journal.refusing).toBe(true);
    expect((await container.view()).flushRetrying).toBe(false);
  });

  it('stops writes too when the fsync fails with ENOSPC (the failed pages may be marked clean, as with EIO); a restart replays every acknowledged message', async () => {
    container = TopicQueueContainer.standalone(persistenceOptions(dir(), NO_AUTOMATIC_FLUSH));
    await container.whenRecovered();
    const queue = await container.getOrCreate(Topic.of('orders'));
    await publish(queue, 'flushed');
    await container.journal.flush();
    await publish(queue, 'in the journal only');
    const fdatasync = jest
      .spyOn(fs, 'fdatasync')
      .mockImplementation((_fd, callback) =>
        callback(Object.assign(new Error('ENOSPC: no space left on device, fdatasync'), { code: 'ENOSPC' })),
      );
    await expect(container.journal.flush()).rejects.toThrow();
    expect(fdatasync).toHaveBeenCalled();
    expect(container.journal.refusing).toBe(true);
    expect((await container.view()).flushRetrying).toBe(false);
    await expect(publish(queue, 'refused')).rejects.toThrow();

    jest.restoreAllMocks();
    await container.onApplicationShutdown();
    container = TopicQueueContainer.standalone(persistenceOptions(dir(), NO_AUTOMATIC_FLUSH));
    await container.whenRecovered();
    const reopened = await container.getOrCreate(Topic.of('orders'));
    const contents = [];
    for (let offset = 0; offset < reopened.tailOffset; offset++) contents.push(String(await reopened.peek(offset)));
    expect(contents.map((payload) => JSON.parse(payload.slice(payload.indexOf('"content":') + 10, -1)))).toEqual([
      'flushed',
      'in the journal only',
    ]);
    expect(container.journal.refusing).toBe(false);
  });
});
