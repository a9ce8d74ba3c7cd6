import type { InboxKey, InboxOutcome } from '@mmmq/consumer';
import type { TransactionRunner } from '../sql/pg-transaction';
import { Inbox, keyOf } from './inbox';

/** Deliveries that share one transaction at most. */
export const DEFAULT_INBOX_GROUP_MAX_MESSAGES = 100;
/** Group transactions open at once at most (each holds a connection of the pool). */
export const DEFAULT_INBOX_GROUP_MAX_TRANSACTIONS = 4;

export interface InboxGroupCommitOptions {
  /** Deliveries that share one transaction at most. Default {@link DEFAULT_INBOX_GROUP_MAX_MESSAGES}. */
  maxMessages?: number;
  /**
   * Transactions open at once at most; keep it at or below the pool's size. Default
   * {@link DEFAULT_INBOX_GROUP_MAX_TRANSACTIONS}.
   */
  maxTransactions?: number;
}

interface Member {
  key: InboxKey;
  id: string;
  handler: (tx: unknown) => Promise<unknown>;
  resolve(outcome: InboxOutcome<unknown>): void;
  reject(error: unknown): void;
}

/**
 * Processes the deliveries that arrive together in one transaction: one reservation statement for the group, the
 * handlers one after another in that transaction, one COMMIT — instead of BEGIN, INSERT, COMMIT per delivery. A
 * delivery resolves only after its group committed. When anything in a group fails (a handler, a deadlock, COMMIT),
 * the whole group rolls back and each of its deliveries runs again alone, so only the failing one rejects.
 */
export class InboxGroupCommit<Tx> {
  private readonly maxMessages: number;
  private readonly maxTransactions: number;
  private readonly waiting: Member[] = [];
  /** Keys queued or in an open group: a second delivery of one waits, instead of blocking a connection on its row. */
  private readonly inFlight = new Set<string>();
  private open = 0;
  private scheduled = false;
  private idle: (() => void) | undefined;

  constructor(
    private readonly inbox: Inbox<Tx>,
    private readonly transaction: TransactionRunner<Tx>,
    options: InboxGroupCommitOptions = {},
  ) {
    this.maxMessages = options.maxMessages ?? DEFAULT_INBOX_GROUP_MAX_MESSAGES;
    this.maxTransactions = options.maxTransactions ?? DEFAULT_INBOX_GROUP_MAX_TRANSACTIONS;
  }

  /** Like {@link Inbox.process} in a transaction of its own, but shares the transaction with other deliveries. */
  process<T>(key: InboxKey, handler: (tx: Tx) => Promise<T>): Promise<InboxOutcome<T>> {
    return new Promise<InboxOutcome<T>>((resolve, reject) => {
      const member = { key, id: keyOf(key), handler, resolve, reject } as Member;
      this.waiting.push(member);
      // The group starts at the end of the turn, so that every delivery handed over in this turn joins it.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.drain();
        });
      }
    });
  }

  /** Resolves once no delivery is waiting or in an open group, every one handed over settled. Idempotent. */
  close(): Promise<void> {
    if (this.waiting.length === 0 && this.open === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.idle;
      this.idle = () => {
        previous?.();
        resolve();
      };
    });
  }

  private drain(): void {
    while (this.open < this.maxTransactions) {
      const group = this.takeGroup();
      if (group.length === 0) break;
      this.open++;
      void this.run(group).finally(() => {
        this.open--;
        for (const member of group) this.inFlight.delete(member.id);
        this.drain();
      });
    }
    if (this.waiting.length === 0 && this.open === 0) {
      const idle = this.idle;
      this.idle = undefined;
      idle?.();
    }
  }

  /** The first waiting deliveries, in order, whose keys no open group holds. */
  private takeGroup(): Member[] {
    const group: Member[] = [];
    for (let i = 0; i < this.waiting.length && group.length < this.maxMessages;) {
      const member = this.waiting[i];
      if (this.inFlight.has(member.id)) {
        i++;
        continue;
      }
      this.inFlight.add(member.id);
      group.push(member);
      this.waiting.splice(i, 1);
    }
    return group;
  }

  private async run(group: Member[]): Promise<void> {
    if (group.length === 1) return this.runAlone(group[0]);
    let outcomes: InboxOutcome<unknown>[];
    try {
      outcomes = await this.transaction(async (tx) => {
        const reserved = await this.inbox.reserveMany(
          tx,
          group.map((member) => member.key),
        );
        const results: InboxOutcome<unknown>[] = [];
        for (const [i, member] of group.entries()) {
          results.push(reserved[i] ? { status: 'processed', result: await member.handler(tx) } : { status: 'duplicate' });
        }
        return results;
      });
    } catch {
      // Rolled back as a whole: alone, each delivery commits or fails on its own.
      for (const member of group) await this.runAlone(member);
      return;
    }
    group.forEach((member, i) => member.resolve(outcomes[i]));
  }

  private async runAlone(member: Member): Promise<void> {
    try {
      member.resolve(await this.transaction((tx) => this.inbox.process(tx, member.key.messageId, member.key.consumerId, member.handler)));
    } catch (error) {
      member.reject(error);
    }
  }
}
