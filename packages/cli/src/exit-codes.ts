/** The exit status of `mmmq`: scripts tell a mistake in the command line from a broker's refusal or damage. */
export const ExitCode = {
  /** Done. */
  OK: 0,
  /** Anything unexpected (a bug, a local file that cannot be read). */
  FAILURE: 1,
  /** The command line is wrong: unknown command or option, a missing or malformed argument. */
  USAGE: 2,
  /** The broker could not be reached, or answered with an error status. */
  BROKER: 3,
  /** `mmmq verify` found damage, or `mmmq bench` lost messages. */
  VERIFICATION_FAILED: 4,
  /** Interrupted (Ctrl-C) before it was done, as shells report SIGINT (128 + 2). */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
