import { DataDirectoryReport, verifyDataDirectory } from '@mmmq/broker';
import type { Command } from 'commander';
import { VerificationFailedError } from '../cli.errors';
import type { CommandContext } from '../command-context';
import { printJson, printTable } from '../output';
import { ProgressDisplay } from '../progress-display';

/** A directory this large gets a progress bar (on a terminal): a smaller one is checked in a blink. */
export const VERIFY_PROGRESS_MIN_BYTES = 64 * 1024 * 1024;

/**
 * `mmmq verify <rootDir>`: checks a stopped broker's data directory offline, as recovery would, and reports every
 * problem and what recovery would do about it; exits {@link ExitCode.VERIFICATION_FAILED} when there is one.
 * Read-only: it opens every file read-only.
 */
export function registerVerifyCommand(program: Command, context: CommandContext): void {
  program
    .command('verify')
    .description("check a stopped broker's data directory offline (journal, segments, indexes, checkpoints); changes nothing")
    .argument('<rootDir>', 'the data directory (MMMQ_ROOT_DIR of the broker)')
    .action(async (rootDir: string, _options: object, command: Command) => {
      const { io } = context;
      let progress: ProgressDisplay | undefined;
      const report = await verifyDataDirectory(rootDir, {
        onProgress: ({ bytesChecked, bytesTotal, filesChecked, filesTotal }) => {
          if (!io.stderr.isTTY || bytesTotal < VERIFY_PROGRESS_MIN_BYTES) return;
          progress ??= new ProgressDisplay(io, 'verify', filesTotal);
          progress.update(filesChecked, { bytes: `${mebibytes(bytesChecked)}/${mebibytes(bytesTotal)} MiB` });
        },
      }).finally(() => progress?.stop());
      if (context.globals(command).json) printJson(io, report);
      else printReport(context, report);
      if (!report.ok) throw new VerificationFailedError(`${report.problems.length} problem(s) found in ${report.rootDir}`);
    });
}

function printReport({ io }: CommandContext, report: DataDirectoryReport): void {
  io.stdout.write(
    `Checked ${report.filesChecked} files (${report.bytesChecked} bytes, ${report.topics} topics) in ${report.rootDir}: ` +
      `${report.problems.length === 0 ? 'no problems' : `${report.problems.length} problem(s)`}\n`,
  );
  if (report.problems.length > 0) {
    // Journal damage has a byte offset; a segment's findings name entries instead.
    const withOffset = report.problems.some((problem) => problem.offset !== undefined);
    printTable(
      io,
      ['file', ...(withOffset ? ['offset'] : []), 'problem and what recovery does'],
      report.problems.map((problem) => [problem.file, ...(withOffset ? [problem.offset] : []), problem.description]),
    );
  }
  if (report.notes.length > 0) {
    io.stdout.write('Notes (no damage):\n');
    printTable(
      io,
      ['file', 'note'],
      report.notes.map((note) => [note.file, note.description]),
    );
  }
}

function mebibytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
