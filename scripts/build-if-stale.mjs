// Builds the workspace (`tsc -b tsconfig.build.json`) only when a project has no build yet or a source changed
// since its last one, and says so while it does; otherwise returns at once. `pnpm start` and `pnpm mmmq` run it first,
// so a fresh clone's first start explains its wait and a CLI command does not pay tsc's own check every time.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUILD_CONFIG = 'tsconfig.build.json';
/** What every project's build also depends on, besides its own `src` and `tsconfig.json`. */
const SHARED_INPUTS = ['tsconfig.base.json', BUILD_CONFIG];

/** The newest modification time under `path` (a file or a directory), in ms. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

/** Why `project` needs a build, or undefined when its last one is complete and newer than its inputs. */
function staleness(project) {
  const directory = join(ROOT, project);
  const buildInfo = join(directory, 'tsconfig.tsbuildinfo');
  if (!existsSync(buildInfo) || !existsSync(join(directory, 'dist'))) return `${project} has no build yet`;
  // tsc records a build that had errors as such; building again shows them.
  if (readFileSync(buildInfo, 'utf8').includes('"errors":true')) return `${project}'s last build had errors`;
  const built = statSync(buildInfo).mtimeMs;
  const inputs = [join(directory, 'src'), join(directory, 'tsconfig.json'), ...SHARED_INPUTS.map((file) => join(ROOT, file))];
  if (inputs.some((input) => newest(input) > built)) return `${project} changed since its last build`;
  return undefined;
}

const projects = JSON.parse(readFileSync(join(ROOT, BUILD_CONFIG), 'utf8')).references.map((reference) => reference.path);
const reason = projects.map(staleness).find((why) => why !== undefined);
if (reason !== undefined) {
  // stderr: `pnpm mmmq … --json` keeps stdout for the command's output.
  console.error(`Building MMMQ (${reason}): tsc -b ${BUILD_CONFIG}, which takes a while the first time…`);
  const started = Date.now();
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const { status } = spawnSync(process.execPath, [tsc, '-b', BUILD_CONFIG], { cwd: ROOT, stdio: 'inherit' });
  if (status !== 0) {
    console.error(`The build failed (tsc exited with ${status}); see its errors above.`);
    process.exit(status ?? 1);
  }
  console.error(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
}
