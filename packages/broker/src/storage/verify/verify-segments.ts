import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { FileHandle } from '../file-handle';
import { FrameProbe } from '../frame-probe';
import { decodeIndex } from '../offset-index-file';
import { DATA_FILE_EXTENSION, INDEX_FILE_EXTENSION, segmentFileName } from '../segment-file';
import { diagnoseSegment } from '../segment-recovery';
import type { VerifyNote, VerifyProblem } from './data-directory-report';

/** What checking a topic's segments found. */
export interface SegmentsVerdict {
  problems: VerifyProblem[];
  notes: VerifyNote[];
  /** The offset after the last entry the topic's files hold (0 without segments). */
  logEnd: number;
}

/**
 * Checks every segment of a topic, oldest first, as recovery would (every frame against the index, see
 * `diagnoseSegment`), through read-only handles. `relative` is the topic directory relative to the data directory;
 * `checked` is told each file read, with its size.
 */
export async function verifySegments(
  topicDir: string,
  relative: string,
  starts: readonly number[],
  checked: (file: string, bytes: number) => void,
): Promise<SegmentsVerdict> {
  const verdict: SegmentsVerdict = { problems: [], notes: [], logEnd: 0 };
  for (const [i, start] of starts.entries()) {
    const dataName = segmentFileName(start, DATA_FILE_EXTENSION);
    const indexName = segmentFileName(start, INDEX_FILE_EXTENSION);
    const data = await FileHandle.openReadOnly(join(topicDir, dataName));
    try {
      const index = await readIndex(join(topicDir, indexName));
      const sealedEntries = i + 1 < starts.length ? starts[i + 1] - start : undefined;
      const diagnosis = await diagnoseSegment(new FrameProbe(data), index.recorded, {
        tornIndexBytes: index.tornBytes,
        indexExisted: index.existed,
        sealedEntries,
      });
      const repairs = [...diagnosis.repairs];
      // A tail segment's frames past its index were written but never acknowledged (a crash between the two
      // writes): recovery drops them, and that is no damage.
      const unacknowledged = diagnosis.cutDataTo !== undefined && index.existed ? repairs.pop() : undefined;
      const file = join(relative, dataName);
      for (const repair of repairs) verdict.problems.push({ file, description: `segment ${start}: ${repair}` });
      if (unacknowledged) verdict.notes.push({ file, description: `segment ${start}: ${unacknowledged}` });
      verdict.logEnd = start + diagnosis.addresses.length;
      checked(file, data.size);
      if (index.existed) checked(join(relative, indexName), index.bytes);
    } finally {
      await data.close();
    }
  }
  return verdict;
}

/** The whole entries of an index file (absent: none), read without opening it for writing. */
async function readIndex(path: string): Promise<{ recorded: number[]; tornBytes: number; existed: boolean; bytes: number }> {
  const bytes = await fs.readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (bytes === undefined) return { recorded: [], tornBytes: 0, existed: false, bytes: 0 };
  const { addresses, tornBytes } = decodeIndex(bytes);
  return { recorded: addresses, tornBytes, existed: true, bytes: bytes.length };
}
