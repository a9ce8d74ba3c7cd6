import { promises as fs } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Topic } from '@mmmq/core';
import { CHECKPOINT_EXTENSION, CHECKPOINTS_DIR } from '../checkpoint-directory';
import { inspectCheckpoint } from '../checkpoint-file';
import { FileHandle } from '../file-handle';
import { JournalOpKind } from '../journal/journal-record';
import { JournalScan, scanJournal } from '../journal/journal-scanner';
import { parseSegmentFileName } from '../segment-file';
import { StorageError } from '../storage.errors';
import { JOURNAL_DIR, TOPICS_DIR } from '../topic-queue-container';
import type { DataDirectoryReport, VerifyOptions } from './data-directory-report';
import { verifySegments } from './verify-segments';

interface TopicFiles {
  name: string;
  dir: string;
  segments: number[];
  checkpoints: string[];
}

/**
 * Checks a broker's data directory offline, the way recovery would at boot, and reports what it would repair:
 * every journal record (checksum, sequence), every segment frame against its index, every checkpoint. Nothing is
 * written: files are opened read-only. Run it on a directory no broker is using (a running broker's unflushed
 * tail may look torn).
 *
 * @throws StorageError when `rootDir` is not a readable directory, or holds neither `journal/` nor `topics/`
 */
export async function verifyDataDirectory(rootDir: string, options: VerifyOptions = {}): Promise<DataDirectoryReport> {
  const root = resolve(rootDir);
  const stats = await fs.stat(root).catch((cause: unknown) => {
    throw new StorageError(`Cannot read the data directory ${root}`, { cause });
  });
  if (!stats.isDirectory()) throw new StorageError(`${root} is not a directory`);
  const entries = await fs.readdir(root);
  // A mistyped path must not pass as a healthy, empty broker.
  if (!entries.includes(JOURNAL_DIR) && !entries.includes(TOPICS_DIR)) {
    throw new StorageError(`${root} holds neither ${JOURNAL_DIR}/ nor ${TOPICS_DIR}/: it is not a broker's data directory`);
  }
  const report: DataDirectoryReport = { rootDir: root, filesChecked: 0, bytesChecked: 0, topics: 0, problems: [], notes: [], ok: true };
  const topics = await listTopics(root, report);
  const journalDir = join(root, JOURNAL_DIR);
  const scan = await scanJournal(journalDir);
  const journalSizes = await Promise.all(scan.files.map(async (file) => (await fs.stat(file.path)).size));
  const bytesTotal = journalSizes.reduce((sum, size) => sum + size, 0) + (await totalBytes(topics.map((topic) => topic.dir)));
  const filesTotal = scan.files.length + topics.reduce((sum, topic) => sum + 2 * topic.segments.length + topic.checkpoints.length, 0);
  const checked = (file: string, bytes: number) => {
    report.filesChecked++;
    report.bytesChecked += bytes;
    options.onProgress?.({ filesChecked: report.filesChecked, filesTotal, bytesChecked: report.bytesChecked, bytesTotal, file });
  };

  await reportJournal(root, scan, report, checked);
  for (const topic of topics) {
    const topicDir = relative(root, topic.dir);
    const segments = await verifySegments(topic.dir, topicDir, topic.segments, checked);
    report.problems.push(...segments.problems);
    report.notes.push(...segments.notes);
    const logEnd = Math.max(segments.logEnd, journaledEnd(scan, topic.name));
    for (const path of topic.checkpoints) {
      const file = await FileHandle.openReadOnly(path);
      try {
        const name = relative(root, path);
        if (file.size === 0) report.notes.push({ file: name, description: 'empty: the subscription starts where its dispatcher says' });
        const { reset } = file.size === 0 ? {} : await inspectCheckpoint(file, logEnd);
        if (reset) {
          report.problems.push({
            file: name,
            description: `holds ${reset}; recovery resets it to 0 (redelivery is safe, skipping is not)`,
          });
        }
        checked(name, file.size);
      } finally {
        await file.close();
      }
    }
  }
  report.topics = topics.length;
  report.ok = report.problems.length === 0;
  return report;
}

/** Journal damage is a problem; a torn tail (a write never acknowledged) and records to replay are notes. */
async function reportJournal(
  root: string,
  scan: JournalScan,
  report: DataDirectoryReport,
  checked: (file: string, bytes: number) => void,
): Promise<void> {
  for (const line of scan.damage) {
    const file = scan.files.find((candidate) => line.startsWith(`${candidate.path}: `));
    const at = /damaged bytes at (\d+)/.exec(line);
    report.problems.push({
      file: file ? relative(root, file.path) : JOURNAL_DIR,
      offset: at ? Number(at[1]) : undefined,
      description: file ? line.slice(file.path.length + 2) : line,
    });
  }
  if (scan.tornTail) {
    const { path, at, bytes } = scan.tornTail;
    report.notes.push({
      file: relative(root, path),
      description: `${bytes} bytes after the last record (at ${at}) hold no record: an unacknowledged write or a recycled file's leftovers; recovery cuts them`,
    });
  }
  const flushed = Math.max(
    0,
    ...scan.records.flatMap((record) => record.ops.map((op) => (op.kind === JournalOpKind.FLUSHED ? op.seq : 0))),
  );
  // A clean shutdown ends with a flush: nothing but FLUSHED records after it.
  const toReplay = scan.records.filter(
    (record) => record.seq > flushed && record.ops.some((op) => op.kind !== JournalOpKind.FLUSHED),
  ).length;
  if (toReplay > 0) {
    report.notes.push({
      file: JOURNAL_DIR,
      description: `${toReplay} records are not in the topic files yet (no clean shutdown); recovery replays them`,
    });
  }
  for (const file of scan.files) checked(relative(root, file.path), (await fs.stat(file.path)).size);
}

/** The offset after the last entry the journal appends to `topic`: the replay extends the log that far. */
function journaledEnd(scan: JournalScan, topic: string): number {
  let end = 0;
  for (const record of scan.records) {
    for (const op of record.ops)
      if (op.kind === JournalOpKind.APPEND && op.topic === topic) end = Math.max(end, op.firstOffset + op.entryCount);
  }
  return end;
}

async function listTopics(root: string, report: DataDirectoryReport): Promise<TopicFiles[]> {
  const topicsDir = join(root, TOPICS_DIR);
  const topics: TopicFiles[] = [];
  for (const entry of await readDir(topicsDir)) {
    if (!entry.isDirectory()) continue;
    if (!Topic.isValid(entry.name)) {
      report.notes.push({ file: join(TOPICS_DIR, entry.name), description: 'not a valid topic name: the broker skips it' });
      continue;
    }
    const dir = join(topicsDir, entry.name);
    const segments = (await readDir(dir))
      .map((file) => parseSegmentFileName(file.name))
      .filter((start): start is number => start !== undefined)
      .sort((a, b) => a - b);
    const checkpointsDir = join(dir, CHECKPOINTS_DIR);
    const checkpoints = (await readDir(checkpointsDir))
      .filter((file) => file.isFile() && file.name.endsWith(CHECKPOINT_EXTENSION))
      .map((file) => join(checkpointsDir, file.name));
    topics.push({ name: entry.name, dir, segments, checkpoints });
  }
  return topics.sort((a, b) => a.name.localeCompare(b.name));
}

async function readDir(dir: string) {
  return fs.readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
}

/** Bytes in the files under `dirs`, for the progress bar. */
async function totalBytes(dirs: string[]): Promise<number> {
  let total = 0;
  for (const dir of dirs) {
    for (const entry of await readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) total += await totalBytes([path]);
      else if (entry.isFile()) total += (await fs.stat(path)).size;
    }
  }
  return total;
}
