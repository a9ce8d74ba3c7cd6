import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { run } from './command';

export const REPOSITORY_ROOT = resolve(__dirname, '../../..');
/** The publishable packages, by folder under `packages/`. */
export const PUBLISHED_PACKAGES = ['core', 'producer', 'consumer', 'broker', 'microservices', 'cli', 'postgres', 'rabbitmq'] as const;
export type PublishedPackage = (typeof PUBLISHED_PACKAGES)[number];

const PNPM = ['-y', 'pnpm@12.4.2'];
const PACK_TIMEOUT_MS = 120_000;

/**
 * `tsc -b` writes but never deletes, so a file renamed or removed in `src` leaves its old output in `dist`, where
 * `pnpm pack` would publish it. Lists such leftovers.
 */
export function staleOutputs(pkg: PublishedPackage): string[] {
  const root = join(REPOSITORY_ROOT, 'packages', pkg);
  return filesUnder(join(root, 'dist'))
    .filter((file) => file.endsWith('.js'))
    .filter((file) => !existsSync(join(root, 'src', relative(join(root, 'dist'), file)).replace(/\.js$/, '.ts')))
    .map((file) => relative(REPOSITORY_ROOT, file));
}

/** `pnpm pack`s a package into `destination` (which rewrites `workspace:` ranges); returns the tarball's path. */
export async function pack(pkg: PublishedPackage, destination: string): Promise<string> {
  const output = await run(
    'npx',
    [...PNPM, 'pack', '--pack-destination', destination],
    join(REPOSITORY_ROOT, 'packages', pkg),
    PACK_TIMEOUT_MS,
  );
  const tarball = output
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .reverse()
    .find((line) => line.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`pnpm pack of ${pkg} named no tarball:\n${output}`);
  return resolve(destination, tarball);
}

/** The paths in a tarball, without npm's `package/` prefix. */
export async function tarballFiles(tarball: string): Promise<string[]> {
  const listing = await run('tar', ['-tzf', tarball], REPOSITORY_ROOT, 30_000);
  return listing
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^package\//, ''));
}

/** One file of a tarball, as text. */
export function tarballFile(tarball: string, path: string): Promise<string> {
  return run('tar', ['-xzOf', tarball, `package/${path}`], REPOSITORY_ROOT, 30_000);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
