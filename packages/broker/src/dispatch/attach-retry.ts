import { Logger } from '@nestjs/common';
import { BackoffOptions, backoffDelay, sleep } from '@mmmq/core';

/**
 * Attaches one subscription again and again, with the delivery backoff, after its checkpoint could not be
 * created or written (a full disk): until an attempt succeeds or the retry is cancelled (the dispatcher changed or
 * was removed, shutdown). One warning when it starts, one log line when it attaches.
 */
export class AttachRetry {
  private readonly logger = new Logger(AttachRetry.name);
  private readonly cancelled = new AbortController();
  /** Resolves once no attempt runs or waits any more (no timer is left). */
  readonly done: Promise<void>;

  /**
   * @param attempt Attaches; true when it did, false when it found the retry cancelled meanwhile; throws when it
   *   failed again. Gets the signal that ends the retry, to check under whatever lock it takes.
   */
  constructor(
    private readonly label: string,
    private readonly backoff: BackoffOptions,
    private readonly attempt: (cancelled: AbortSignal) => Promise<boolean>,
    failure: unknown,
  ) {
    this.done = this.run(failure);
  }

  /** Ends the retry: a wait ends at once, an attempt not started yet does nothing. Does not wait (see `done`). */
  cancel(): void {
    this.cancelled.abort();
  }

  private async run(failure: unknown): Promise<void> {
    const { signal } = this.cancelled;
    this.logger.warn(`${this.label}: attaching failed (${messageOf(failure)}); retrying with backoff until it succeeds`);
    for (let failures = 1; !signal.aborted; failures++) {
      await sleep(backoffDelay(failures, this.backoff), signal);
      if (signal.aborted) return;
      try {
        if (await this.attempt(signal)) this.logger.log(`${this.label}: attached after ${failures} retries`);
        return;
      } catch {
        // Failed again; the warning above stands. Wait longer.
      }
    }
  }
}

function messageOf(error: unknown): string {
  const { message, cause } = error as { message?: string; cause?: { message?: string } };
  return [message ?? String(error), cause?.message].filter(Boolean).join(': ');
}
