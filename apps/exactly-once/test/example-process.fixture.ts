import { resolve } from 'node:path';
import { type AppProcess, spawnApp } from '@mmmq/test-support';

/** The compiled exactly-once example; the root `test` script builds it before jest runs. */
export const EXACTLY_ONCE_MAIN = resolve(__dirname, '../dist/main.js');

/** Runs `node apps/exactly-once/dist/main.js` as its README does, configured by `env`. */
export function spawnExactlyOnce(env: Record<string, string>): AppProcess {
  return spawnApp('The exactly-once example', EXACTLY_ONCE_MAIN, env);
}
