import { statSync } from 'node:fs';
import { waitFor } from '@mmmq/test-support';
import { Logger } from '@nestjs/common';
import { FileHandle } from '../../src/storage/file-handle';
import { JOURNAL_HEADER_BYTES, JournalFile } from '../../src/storage/journal/journal-file';
import { encodeRecord } from '../../src/storage/journal/journal-group';
import { JOURNAL_PREALLOCATE_CHUNK_BYTES } from '../../src/storage/journal/journal-preallocation';
import { scanJournal } from '../../src/storage/journal/journal-scanner';
import { ioError } from './io-spy';
import { appendOp } from './journal-bytes';
import { useTempDir } from './temp-dir';

// A failed extension is reported at debug level only; nothing else logs here.
Logger.overrideLogger(false);

const MIB = 1024 * 1024;

/** A record (seq) holding one entry of `bytes` bytes, as the journal assembles one. */
const recordOf = (seq: number, bytes: number) => encodeRecord(seq, [appendOp('t', seq, [Buffer.alloc(bytes, seq % 250)])]).record;
const sizeOf = (path: string) => statSync(path).size;

describe('journal files are allocated ahead of their records', () => {
  const dir = useTempDir();

  it('extends a new file with durable zeros a chunk ahead; its records read back and the rest is an unused tail', async () => {
    const file = await JournalFile.create(dir(), 1);
    await waitFor(() => sizeOf(file.path) === JOURNAL_HEADER_BYTES + JOURNAL_PREALLOCATE_CHUNK_BYTES, {
      message: 'the first chunk to be allocated',
    });
    for (let seq = 1; seq <= 3; seq++) await file.append(recordOf(seq, 1000));
    expect(sizeOf(file.path)).toBe(JOURNAL_HEADER_BYTES + JOURNAL_PREALLOCATE_CHUNK_BYTES);
    const scan = await scanJournal(dir());
    expect(scan.records.map((record) => record.seq)).toEqual([1, 2, 3]);
    expect(scan.unusedTails).toEqual([{ path: file.path, at: file.size }]);
    expect(scan.tornTail).toBeUndefined();
    await file.close();
  });

  it('keeps allocating as records near the allocated end, never past the limit', async () => {
    const limit = 3 * JOURNAL_PREALLOCATE_CHUNK_BYTES;
    const file = await JournalFile.create(dir(), 1, undefined, limit);
    for (let seq = 1; seq <= 12; seq++) {
      await file.append(recordOf(seq, MIB - 100));
      await waitFor(() => sizeOf(file.path) >= Math.min(limit, file.size + JOURNAL_PREALLOCATE_CHUNK_BYTES / 2), {
        message: 'allocation ahead',
      });
    }
    expect(sizeOf(file.path)).toBe(limit);
    expect((await scanJournal(dir())).records).toHaveLength(12);
    await file.close();
  });

  it('lets a record that reaches into a running extension wait for it, so the zeros never overwrite it', async () => {
    const file = await JournalFile.create(dir(), 1);
    // Right after create the first extension runs; this record reaches past it.
    await file.append(recordOf(1, JOURNAL_PREALLOCATE_CHUNK_BYTES + MIB));
    await file.append(recordOf(2, 1000));
    await file.close();
    expect((await scanJournal(dir())).records.map((record) => record.seq)).toEqual([1, 2]);
  });

  it('grows the file with its records when an extension fails (the disk is full), and tries no more', async () => {
    const writeAt = FileHandle.prototype.writeAt;
    const spy = jest.spyOn(FileHandle.prototype, 'writeAt').mockImplementation(function (
      this: FileHandle,
      bytes: Buffer,
      position: number,
    ) {
      return bytes.length >= MIB / 2 && bytes.every((byte) => byte === 0)
        ? Promise.reject(ioError('ENOSPC', 'write'))
        : writeAt.call(this, bytes, position);
    });
    try {
      const file = await JournalFile.create(dir(), 1);
      await waitFor(() => spy.mock.calls.length >= 2, { message: 'the extension to be tried' });
      for (let seq = 1; seq <= 3; seq++) await file.append(recordOf(seq, 1000));
      expect(sizeOf(file.path)).toBe(file.size);
      expect(file.size).toBeGreaterThan(JOURNAL_HEADER_BYTES + 3000);
      expect((await scanJournal(dir())).records).toHaveLength(3);
      await file.close();
    } finally {
      spy.mockRestore();
    }
  });

  it('is cut back to its records when a failed record is cut', async () => {
    const file = await JournalFile.create(dir(), 1);
    await file.append(recordOf(1, 1000));
    const end = file.size;
    await file.append(recordOf(2, 1000));
    await file.truncate(end);
    expect(sizeOf(file.path)).toBe(end);
    await file.append(recordOf(2, 1000));
    await file.close();
    expect((await scanJournal(dir())).records.map((record) => record.seq)).toEqual([1, 2]);
  });
});
