import { MmmqError } from '@mmmq/core';
import { ExitCode } from './exit-codes';

/** A failure `mmmq` reports in one line and turns into its exit code. */
export abstract class CliError extends MmmqError {
  abstract readonly exitCode: ExitCode;
}

/** A malformed argument the command line parser could not catch (a header without `=`, JSON that does not parse). */
export class UsageError extends CliError {
  readonly exitCode = ExitCode.USAGE;
}

/** The broker could not be reached or answered with an error status; `status` is absent when nothing answered. */
export class BrokerRequestError extends CliError {
  readonly exitCode = ExitCode.BROKER;

  constructor(
    message: string,
    readonly status?: number,
    readonly body?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What was checked is not sound: `mmmq verify` found damage, `mmmq bench` missed messages. */
export class VerificationFailedError extends CliError {
  readonly exitCode = ExitCode.VERIFICATION_FAILED;
}
