import { resolve } from 'node:path';
import { type AppProcess, spawnApp } from '@mmmq/test-support';

/** The compiled example; the root `test` script builds it before jest runs. */
export const EXAMPLE_MAIN = resolve(__dirname, '../dist/main.js');

/** Runs `node apps/example/dist/main.js` as the README does, configured by `env`. */
export function spawnExample(env: Record<string, string>): AppProcess {
  return spawnApp('The example', EXAMPLE_MAIN, env);
}
