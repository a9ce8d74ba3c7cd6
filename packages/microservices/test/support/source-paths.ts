import Module from 'node:module';
import { resolve } from 'node:path';

/**
 * For a child process run with ts-node (which ignores tsconfig `paths`): resolves `@mmmq/<package>` and
 * `@mmmq/<package>/internal` to the packages' sources, as jest's moduleNameMapper does, so no build is needed.
 * Import it first.
 */
const PACKAGES = resolve(__dirname, '../../..');
const MMMQ = /^@mmmq\/([^/]+)(?:\/(internal|testing))?$/;

type Resolve = (request: string, ...rest: unknown[]) => string;
const moduleWithResolver = Module as unknown as { _resolveFilename: Resolve };
const original = moduleWithResolver._resolveFilename;
moduleWithResolver._resolveFilename = function (request: string, ...rest: unknown[]): string {
  const match = MMMQ.exec(request);
  const mapped = match ? resolve(PACKAGES, match[1], 'src', match[2] ?? '') : request;
  return original.call(this, mapped, ...rest);
};
