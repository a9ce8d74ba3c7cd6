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

type StagedGroup = Awaited<ReturnType<SegmentFileChain['stage']>>;

/** Offers written together: one data write + fsync, one index write + fsync. */
interface Group {
  offers: PendingOffer[];
  payloads: readonly Buffer[];
}

/**
 * Group commit for one topic. While a group is being written, new offers queue up; the next group takes all of
 * them at once. Two groups are in progress at most, in a pipeline: while one group's index entries are written
 * and fsync'd (its commit point), the next group's data is written and fsync'd. A lone offer is written at the
 * end of the current turn of the event loop, never held back waiting for company.
 */
export class GroupCommit {
  private readonly logger = new Logger(GroupCommit.name);
  private pending: PendingOffer[] = [];
  private running?: Promise<void>;
  private failure?: { cause: unknown; at: number; cutBack: boolean };
  /** Groups a failure took down, rejected once the segment has been cut back. */
  private readonly failed: Group[] = [];
  /** Set while the run waits for an index phase with no offer pending. */
  private wake?: () => void;

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
      this.wake?.();
      // Starting at the end of this turn of the event loop lets every publish read in the same turn join.
      this.running ??= new Promise<void>((start) => setImmediate(start)).then(() => this.run());
    });
  }

  /** Resolves (false) at the next submit, for a run waiting on an index phase with nothing else to do. */
  private nextSubmit(): Promise<false> {
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve(false);
      };
    });
  }

  /** Resolves once every offer submitted so far is settled. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    let indexing: Promise<void> | undefined;
    try {
      for (;;) {
        if (this.failure) {
          await indexing;
          indexing = undefined;
          await this.cutBack();
        }
        if (this.pending.length === 0) {
          if (!indexing) break;
          // An offer that arrives while a group is being indexed starts its data phase at once.
          const done = await Promise.race([indexing.then(() => true), this.nextSubmit()]);
          if (done) indexing = undefined;
          continue;
        }
        const group = this.takeGroup();
        if (this.failure && !(await this.recover())) {
          this.rejectAll(group.offers, this.failure?.cause);
          continue;
        }
        // A new segment starts at the end of the old one, so nothing may be staged in the old one any more.
        if (this.chain.rotationDue) {
          await indexing;
          indexing = undefined;
        }
        let staged: StagedGroup;
        try {
          staged = await this.chain.stage(group.payloads);
        } catch (cause) {
          this.fail(group, cause);
          continue;
        }
        indexing = this.commit(group, staged, indexing);
      }
    } finally {
      // Same function as the emptiness check, so no submit can slip in between the check and this reset.
      this.running = undefined;
    }
  }

  /** The group's commit point, after the group before it has committed (or failed, which fails this one too). */
  private async commit(group: Group, staged: StagedGroup, previous?: Promise<void>): Promise<void> {
    await previous;
    if (this.failure) {
      this.failed.push(group);
      return;
    }
    try {
      const first = await this.chain.commit(staged);
      let offset = first;
      for (const offer of group.offers) {
        offer.resolve(offset);
        offset += offer.payloads.length;
      }
      this.onCommit(first, group.payloads);
    } catch (cause) {
      this.fail(group, cause);
    }
  }

  private fail(group: Group, cause: unknown): void {
    this.failed.push(group);
    if (this.failure) return;
    this.failure = { cause, at: Date.now(), cutBack: false };
    this.logger.error(
      `Topic ${this.topicName}: write failed, the publishes being written are NACKed; ` +
        `writes are refused for ${WRITE_RECOVERY_DELAY_MS} ms, then the tail segment is reopened`,
      cause instanceof Error ? cause.stack : String(cause),
    );
  }

  /**
   * With no phase running any more, cuts the tail segment back to its last commit, then NACKs the groups the
   * failure took down: their answer only goes out once nothing of them is left in the files.
   */
  private async cutBack(): Promise<void> {
    const failure = this.failure!;
    if (!failure.cutBack) {
      failure.cutBack = true;
      await this.chain.rollback(failure.cause).catch((error: unknown) => {
        this.logger.error(`Topic ${this.topicName}: cutting the tail segment back failed; reopening it will recover`, (error as Error).stack);
      });
    }
    for (const group of this.failed.splice(0)) this.rejectAll(group.offers, failure.cause);
  }

  private takeGroup(): Group {
    let bytes = 0;
    let count = 0;
    while (count < this.pending.length && (count === 0 || bytes + this.pending[count].bytes <= GROUP_COMMIT_MAX_BYTES)) {
      bytes += this.pending[count].bytes;
      count++;
    }
    const offers = this.pending.splice(0, count);
    return { offers, payloads: offers.length === 1 ? offers[0].payloads : offers.flatMap((offer) => offer.payloads) };
  }

  private async recover(): Promise<boolean> {
    if (!this.failure || Date.now() - this.failure.at < WRITE_RECOVERY_DELAY_MS) return false;
    try {
      await this.chain.reopenTail();
      this.logger.log(`Topic ${this.topicName}: tail segment reopened after a write failure; accepting writes again`);
      this.failure = undefined;
      return true;
    } catch (cause) {
      this.failure = { cause, at: Date.now(), cutBack: true };
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
