import type { CliOutput } from './cli-io';

/** The environment variable of the broker's URL, as in the README and the example applications. */
export const BROKER_URL_VARIABLE = 'MMMQ_BROKER';
/** Its name before it matched theirs: still read when `MMMQ_BROKER` is unset, with one warning. */
export const DEPRECATED_BROKER_URL_VARIABLE = 'MMMQ_BROKER_URL';

/**
 * The broker URL `env` gives, if any: `MMMQ_BROKER`, else the deprecated `MMMQ_BROKER_URL`. A set
 * `MMMQ_BROKER_URL` writes one warning line to `stderr` naming `MMMQ_BROKER`. An empty value counts as unset.
 */
export function brokerUrlFromEnv(env: NodeJS.ProcessEnv, stderr: CliOutput): string | undefined {
  const current = env[BROKER_URL_VARIABLE] || undefined;
  const deprecated = env[DEPRECATED_BROKER_URL_VARIABLE] || undefined;
  if (deprecated !== undefined)
    stderr.write(
      current === undefined
        ? `mmmq: warning: ${DEPRECATED_BROKER_URL_VARIABLE} is deprecated; set ${BROKER_URL_VARIABLE} instead\n`
        : `mmmq: warning: ${DEPRECATED_BROKER_URL_VARIABLE} is deprecated and ignored: ${BROKER_URL_VARIABLE} is set\n`,
    );
  return current ?? deprecated;
}
