import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { verifyDataDirectory, VerifyProgress } from '@mmmq/broker';
import { makeTempDir, removeTempDir, startBroker } from '@mmmq/test-support';
import { ExitCode } from '../src';
import { mmmq } from './cli-runner';

/** Small segments, so one topic has closed segments and a tail one. */
const SEGMENT_MAX_BYTES = 200;

/** Every file under `dir` with a hash of its bytes and its modification time: what `verify` must leave alone. */
function fingerprint(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[relative(dir, full)] = `${createHash('sha256').update(readFileSync(full)).digest('hex')} ${statSync(full).mtimeMs}`;
    }
  };
  walk(dir);
  return files;
}

function flipByte(path: string, at: number): void {
  const bytes = readFileSync(path);
  bytes[at] ^= 0xff;
  writeFileSync(path, bytes);
}

describe('mmmq verify', () => {
  let rootDir: string;
  const segment = (start: number, extension: string) => join(rootDir, 'topics/orders', `${String(start).padStart(19, '0')}${extension}`);

  beforeEach(async () => {
    rootDir = await makeTempDir('mmmq-verify-');
    const broker = await startBroker({ persistence: { rootDir, segment: { maxBytes: SEGMENT_MAX_BYTES } } });
    await broker.publishAll(
      'orders',
      Array.from({ length: 12 }, (_, n) => ({ order: n, note: 'some padding to fill the segments' })),
    );
    await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'billing', pattern: 'orders' });
    const fetched = await broker.request('POST', '/mmmq/consumers/billing/fetch', { max: 2, waitMs: 5000 });
    await broker.request('POST', '/mmmq/consumers/billing/ack', {
      leases: fetched.body.messages.map((message: { lease: string }) => message.lease),
    });
    await broker.close();
  });
  afterEach(() => removeTempDir(rootDir));

  /** The start offsets of the topic's segments, oldest first. */
  const segmentStarts = () =>
    readdirSync(join(rootDir, 'topics/orders'))
      .filter((name) => name.endsWith('.mmm'))
      .map((name) => Number(name.slice(0, 19)))
      .sort((a, b) => a - b);

  it('exits 0 on a healthy data directory and says it found no problems', async () => {
    const result = await mmmq(undefined, ['verify', rootDir]);
    const json = await mmmq(undefined, ['--json', 'verify', rootDir]);

    expect(segmentStarts().length).toBeGreaterThanOrEqual(3);
    expect(result).toMatchObject({ code: ExitCode.OK, stderr: '' });
    expect(result.stdout).toMatch(/^Checked \d+ files \(\d+ bytes, 1 topics\) in .*: no problems\n/);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, problems: [], topics: 1 });
  });

  it('reports a flipped byte in a segment, a truncated index and a corrupt checkpoint, exits 4, and changes nothing', async () => {
    const [first, second] = segmentStarts();
    flipByte(segment(first, '.mmm'), 12);
    truncateSync(segment(second, '.idx'), 0);
    writeFileSync(join(rootDir, 'topics/orders/checkpoints/billing.checkpoint'), 'garbage');
    const before = fingerprint(rootDir);

    const table = await mmmq(undefined, ['verify', rootDir]);
    const json = await mmmq(undefined, ['--json', 'verify', rootDir]);

    expect(table.code).toBe(ExitCode.VERIFICATION_FAILED);
    expect(table.stderr).toBe(`mmmq: 3 problem(s) found in ${rootDir}\n`);
    expect(table.stdout).toContain('3 problem(s)');
    expect(json.code).toBe(ExitCode.VERIFICATION_FAILED);
    const report = JSON.parse(json.stdout);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      {
        file: relative(rootDir, segment(first, '.mmm')),
        description: `segment ${first}: entry 0 fails its checksum; it keeps its offset and is skipped at delivery`,
      },
      {
        file: relative(rootDir, segment(second, '.mmm')),
        description: expect.stringMatching(new RegExp(`^segment ${second}: rebuilt \\d+ index entries from the data$`)),
      },
      {
        file: 'topics/orders/checkpoints/billing.checkpoint',
        description: expect.stringMatching(/^holds 7 bytes that are neither an 8-byte checkpoint .*; recovery resets it to 0/),
      },
    ]);
    expect(fingerprint(rootDir)).toEqual(before);
  });

  it("reports the segment repairs the broker's recovery then makes, in the same words", async () => {
    const [first, second] = segmentStarts();
    flipByte(segment(first, '.mmm'), 12);
    truncateSync(segment(second, '.idx'), 0);
    const verified = await verifyDataDirectory(rootDir);
    const warnings: string[] = [];
    const recorder = { log() {}, error() {}, debug() {}, verbose() {}, warn: (message: unknown) => warnings.push(String(message)) };

    const broker = await startBroker({ persistence: { rootDir, segment: { maxBytes: SEGMENT_MAX_BYTES } } }, { logger: recorder });
    await broker.close();

    // One warning per repaired segment, its repairs joined by '; '.
    const repaired = warnings
      .filter((line) => line.startsWith('Topic orders, segment '))
      .map((line) => line.replace(/^Topic orders, /, ''));
    const reported = [first, second].map((start) => {
      const prefix = `segment ${start}: `;
      const lines = verified.problems.filter((problem) => problem.description.startsWith(prefix));
      return `segment ${start} repaired: ${lines.map((problem) => problem.description.slice(prefix.length)).join('; ')}`;
    });
    expect(reported).toEqual(repaired);
    // The rebuilt index is repaired for good; a damaged frame stays damaged (isolated) and is reported again.
    expect((await verifyDataDirectory(rootDir)).problems.map((problem) => problem.description)).toEqual([
      `segment ${first}: entry 0 fails its checksum; it keeps its offset and is skipped at delivery`,
    ]);
  });

  it('reports damage in the middle of a journal file with the byte offset where it starts', async () => {
    // Before its first flush, a broker's records are only in the journal.
    const runningDir = await makeTempDir('mmmq-verify-journal-');
    try {
      const broker = await startBroker({ persistence: { rootDir: runningDir, flush: { intervalMs: 3_600_000 } } });
      await broker.publishAll('payments', [1, 2, 3]);
      const [journal] = readdirSync(join(runningDir, 'journal')).filter((name) => name.endsWith('.journal'));
      const copy = await makeTempDir('mmmq-verify-copy-');
      try {
        // Copied while the broker runs, as a crash would leave it: its records not yet flushed.
        const bytes = readFileSync(join(runningDir, 'journal', journal));
        mkdirSync(join(copy, 'journal'));
        bytes[16 + 20] ^= 0xff;
        writeFileSync(join(copy, 'journal', journal), bytes);

        const report = await verifyDataDirectory(copy);

        expect(report.ok).toBe(false);
        expect(report.problems).toEqual([
          {
            file: join('journal', journal),
            offset: 16,
            description: expect.stringMatching(/^\d+ damaged bytes at 16; records 1\.\.1 are lost/),
          },
        ]);
      } finally {
        await removeTempDir(copy);
      }
      await broker.close();
    } finally {
      await removeTempDir(runningDir);
    }
  });

  it('reports progress file by file up to the total', async () => {
    const progress: VerifyProgress[] = [];

    await verifyDataDirectory(rootDir, { onProgress: (step) => progress.push(step) });

    const last = progress[progress.length - 1];
    expect(last.filesChecked).toBe(last.filesTotal);
    expect(last.bytesChecked).toBe(last.bytesTotal);
    expect(progress.map((step) => step.filesChecked)).toEqual(progress.map((_, i) => i + 1));
  });

  it('exits 1 with a clear message for a directory that does not exist or is no data directory', async () => {
    const missing = await mmmq(undefined, ['verify', join(rootDir, 'missing')]);
    const notData = await mmmq(undefined, ['verify', join(rootDir, 'topics')]);

    expect(missing.code).toBe(ExitCode.FAILURE);
    expect(missing.stderr).toBe(`mmmq: Cannot read the data directory ${join(rootDir, 'missing')}\n`);
    expect(notData.code).toBe(ExitCode.FAILURE);
    expect(notData.stderr).toContain("holds neither journal/ nor topics/: it is not a broker's data directory");
  });
});
