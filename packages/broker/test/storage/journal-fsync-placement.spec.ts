import { join } from 'node:path';
import { Journal } from '../../src/storage/journal/journal';
import { recoverJournal } from '../../src/storage/journal/journal-recovery';
import { JournalOpKind } from '../../src/storage/journal/journal-record';
import { cursorOnly, encodeSnapshot } from '../../src/storage/subscription-snapshot';
import { useTempDir } from './temp-dir';

// The module object itself (an `import * as` namespace has read-only bindings), so its functions can be spied on.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof import('node:fs');

/** A subscription-state commit of `topic`, as a settled ACK writes it: no entries, only the consumer's state. */
function stateCommit(journal: Journal, topic: string) {
  const op = { kind: JournalOpKind.CHECKPOINT_STATE as const, topic, consumerId: 'billing', state: encodeSnapshot(cursorOnly(1)) };
  return journal.commit([{ op }]);
}

describe('where a lone commit is fsync’d: on the event loop, or on the thread pool when the application needs the loop', () => {
  const dir = useTempDir();
  let journal: Journal;
  /** The topics the journal asked about, per commit. */
  let asked: string[][];

  beforeEach(async () => {
    asked = [];
    // An in-process listener takes `orders`; nothing in this process takes `audit`.
    const loopDemand = { needed: (topics: readonly string[]) => (asked.push([...topics]), topics.includes('orders')) };
    journal = new Journal({ intervalMs: 3_600_000, bytes: Number.MAX_SAFE_INTEGER }, undefined, undefined, { loopDemand });
    await journal.open(await recoverJournal(join(dir(), 'journal'), (name) => Promise.reject(new Error(`no topic ${name}`))));
    asked = [];
  });

  afterEach(async () => {
    await journal.close();
    jest.restoreAllMocks();
  });

  it('a state commit of a topic an in-process listener takes goes to the thread pool, as a publish to it does', async () => {
    const onLoop = jest.spyOn(fs, 'fdatasyncSync');
    const inPool = jest.spyOn(fs, 'fdatasync');
    await stateCommit(journal, 'orders');
    expect(asked).toEqual([['orders']]);
    expect(onLoop).not.toHaveBeenCalled();
    expect(inPool).toHaveBeenCalledTimes(1);
  });

  it('a state commit of a topic nobody in this process takes is fsync’d on the event loop', async () => {
    const onLoop = jest.spyOn(fs, 'fdatasyncSync');
    const inPool = jest.spyOn(fs, 'fdatasync');
    await stateCommit(journal, 'audit');
    expect(asked).toEqual([['audit']]);
    expect(onLoop).toHaveBeenCalledTimes(1);
    expect(inPool).not.toHaveBeenCalled();
  });
});
