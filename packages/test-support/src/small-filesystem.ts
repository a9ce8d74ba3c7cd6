import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** A small file system mounted for a disk-full test (the fault suite's scenario, the disk guard's), or why there is none. */
export type SmallFilesystem = { mounted: true; kind: string; dir: string; unmount(): void } | { mounted: false; reason: string };

/**
 * Mounts a file system of `bytes` at `{workDir}/disk`: tmpfs if the kernel lets this process (root, or a user
 * with CAP_SYS_ADMIN) mount one, else a loop-mounted ext4 image. Reports why neither worked instead of failing,
 * so the test can record that it was skipped and why.
 */
export function mountSmallFilesystem(workDir: string, bytes: number): SmallFilesystem {
  const dir = join(workDir, 'disk');
  mkdirSync(dir, { recursive: true });
  const tried: string[] = [];
  try {
    run('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]);
    return { mounted: true, kind: `tmpfs of ${bytes / 2 ** 20} MiB`, dir, unmount: () => unmount(dir) };
  } catch (error) {
    tried.push(`tmpfs: ${message(error)}`);
  }
  const image = join(workDir, 'disk.img');
  try {
    run('truncate', ['-s', String(bytes), image]);
    run('mkfs.ext4', ['-q', '-F', image]);
    run('mount', ['-o', 'loop', image, dir]);
    return {
      mounted: true,
      kind: `loop-mounted ext4 of ${bytes / 2 ** 20} MiB`,
      dir,
      unmount: () => {
        unmount(dir);
        rmSync(image, { force: true });
      },
    };
  } catch (error) {
    tried.push(`loop-mounted ext4: ${message(error)}`);
    rmSync(image, { force: true });
  }
  return { mounted: false, reason: `no small file system could be mounted (${tried.join('; ')})` };
}

function unmount(dir: string): void {
  run('umount', [dir]);
}

function run(command: string, args: string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function message(error: unknown): string {
  const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
  return stderr || (error as Error).message;
}
