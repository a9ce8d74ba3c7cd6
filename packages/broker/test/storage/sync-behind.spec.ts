import { join } from 'node:path';
import { waitFor } from '@mmmq/test-support';
import { FileHandle } from '../../src/storage/file-handle';
import { SEGMENT_SYNC_BEHIND_BYTES, SegmentFile } from '../../src/storage/segment-file';
import { ioError } from './io-spy';
import { bytes, useTempDir } from './temp-dir';

// The module object itself, so its callback fdatasync can be made to fail.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof import('node:fs');

describe('fsyncs started behind the writes', () => {
  const dir = useTempDir();
  afterEach(() => jest.restoreAllMocks());

  it('leave the file clean once they succeed', async () => {
    const file = await FileHandle.open(join(dir(), 'a'), true);
    await file.append(bytes('hello'));
    const fdatasync = jest.spyOn(fs, 'fdatasync');
    file.syncBehind();
    await waitFor(() => !file.dirty, { message: 'the background fsync to cover the write' });
    expect(fdatasync).toHaveBeenCalledTimes(1);
    await file.close();
  });

  it('keep a failure for the next sync, which fails with it rather than trusting a retried fsync', async () => {
    const file = await FileHandle.open(join(dir(), 'b'), true);
    await file.append(bytes('hello'));
    const fdatasync = jest.spyOn(fs, 'fdatasync').mockImplementationOnce((_fd, callback) => callback(ioError('EIO', 'fdatasync')));
    file.syncBehind();
    await waitFor(() => fdatasync.mock.calls.length === 1, { message: 'the background fsync to run' });
    await waitFor(
      () =>
        file.sync().then(
          () => false,
          () => true,
        ),
      { message: 'the next sync to fail' },
    );
    await expect(file.sync()).rejects.toThrow(/An earlier fsync of .* failed \(behind its writes/);
    await file.close();
  });

  it(`start for a segment's data every ${SEGMENT_SYNC_BEHIND_BYTES / 1024 / 1024} MiB written, not per write`, async () => {
    const syncBehind = jest.spyOn(FileHandle.prototype, 'syncBehind');
    const { segment } = await SegmentFile.open(dir(), 0);
    const frame = Buffer.alloc(64 * 1024);
    const writes = (2 * SEGMENT_SYNC_BEHIND_BYTES) / frame.length + 3;
    for (let i = 0; i < writes; i++) await segment.write(frame, [0]);
    expect(syncBehind).toHaveBeenCalledTimes(2);
    // A sync starts the count again.
    await segment.sync();
    for (let i = 0; i < SEGMENT_SYNC_BEHIND_BYTES / frame.length - 1; i++) await segment.write(frame, [0]);
    expect(syncBehind).toHaveBeenCalledTimes(2);
    await segment.close();
  });
});
