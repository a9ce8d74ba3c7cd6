import { Logger } from '@nestjs/common';
import { SegmentFileChain } from './segment-file-chain';
import { StorageUnavailableError } from './storage.errors';

/** Upper bound of bytes written by one group commit, so one huge burst cannot hold every publisher's ACK. */
export const GROUP_COMMIT_MAX_BYTES = 4 * 1024 * 1024;
/** After a failed write the topic refuses writes this long before it reopens its tail segment and tries again. */
export const WRITE_RECOVERY_DELAY_MS = 1000;

interface PendingOffer {
  payloads: readonly Buffer[];
  bytes: number;
  resolve: (firstOffset: number) => void;
  reject: (error: Error) => void;
}

/**
 * Group commit for one topic. While a write + fsync is running, new offers queue up; the next write takes all of
 * them at once. A lone offer is written at the end of the current turn of the event loop, never held back
 * waiting for company.
 */
export class GroupCommit {
  private readonly logger = new Logger(GroupCommit.name);
  private pending: PendingOffer[] = [];
  private running?: Promise<void>;
  private failure?: { cause: unknown; at: number };

  constructor(
    private readonly topicName: string,
    private readonly chain: SegmentFileChain,
    private readonly onCommit: (firstOffset: number, payloads: readonly Buffer[]) => void,
  ) {}

  submit(payloads: readonly Buffer[]): Promise<number> {
    let bytes = 0;
    for (const payload of payloads) bytes += payload.length;
    return new Promise((resolve, reject) => {
      this.pending.push({ payloads, bytes, resolve, reject });
      // Starting at the end of this turn of the event loop lets every publish read in the same turn join.
      this.running ??= new Promise<void>((start) => setImmediate(start)).then(() => this.run());
    });
  }

  /** Resolves once every offer submitted so far is settled. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    try {
      while (this.pending.length > 0) await this.commit(this.takeGroup());
    } finally {
      // Same function as the emptiness check, so no submit can slip in between the check and this reset.
      this.running = undefined;
    }
  }

  private async commit(group: PendingOffer[]): Promise<void> {
    if (this.failure && !(await this.recover())) {
      this.rejectAll(group, this.failure.cause);
      return;
    }
    const payloads = group.length === 1 ? group[0].payloads : group.flatMap((offer) => offer.payloads);
    try {
      const first = await this.chain.append(payloads);
      let offset = first;
      for (const offer of group) {
        offer.resolve(offset);
        offset += offer.payloads.length;
      }
      this.onCommit(first, payloads);
    } catch (cause) {
      this.failure = { cause, at: Date.now() };
      this.logger.error(
        `Topic ${this.topicName}: write failed, ${payloads.length} publishes NACKed; ` +
          `writes are refused for ${WRITE_RECOVERY_DELAY_MS} ms, then the tail segment is reopened`,
        cause instanceof Error ? cause.stack : String(cause),
      );
      this.rejectAll(group, cause);
    }
  }

  private takeGroup(): PendingOffer[] {
    let bytes = 0;
    let count = 0;
    while (count < this.pending.length && (count === 0 || bytes + this.pending[count].bytes <= GROUP_COMMIT_MAX_BYTES)) {
      bytes += this.pending[count].bytes;
      count++;
    }
    return this.pending.splice(0, count);
  }

  private async recover(): Promise<boolean> {
    if (!this.failure || Date.now() - this.failure.at < WRITE_RECOVERY_DELAY_MS) return false;
    try {
      await this.chain.reopenTail();
      this.logger.log(`Topic ${this.topicName}: tail segment reopened after a write failure; accepting writes again`);
      this.failure = undefined;
      return true;
    } catch (cause) {
      this.failure = { cause, at: Date.now() };
      return false;
    }
  }

  private rejectAll(group: PendingOffer[], cause: unknown): void {
    const retryAfterMs = Math.max(0, WRITE_RECOVERY_DELAY_MS - (Date.now() - (this.failure?.at ?? 0)));
    for (const offer of group) {
      offer.reject(
        new StorageUnavailableError(
          `Topic ${this.topicName} could not store the message (${describe(cause)}); nothing was written, retry later`,
          { cause, retryAfterMs },
        ),
      );
    }
  }
}

/** The innermost cause's message: "EIO: i/o error, fsync" says more to a client than our wrapper does. */
function describe(cause: unknown): string {
  let root = cause;
  for (;;) {
    if (root instanceof AggregateError && root.errors.length > 0) root = root.errors[0];
    else if (root instanceof Error && root.cause !== undefined) root = root.cause;
    else break;
  }
  return root instanceof Error ? root.message : String(root);
}
