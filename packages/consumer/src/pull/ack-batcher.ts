import { setTimeout as sleep } from 'node:timers/promises';
import { BrokerRequestError } from '../errors/broker-request.error';
import type { SettleResult } from './pull-client';
import { pullBackoffDelay } from './pull-backoff';

/** `dupsOk`: acknowledgements wait up to this long to be sent together. */
export const DUPS_OK_ACK_LINGER_MS = 100;
/** `dupsOk`: this many waiting acknowledgements are sent at once, without waiting for the linger. */
export const DUPS_OK_ACK_BATCH = 100;
/** Leases per `ack` request at most. */
export const MAX_ACKS_PER_REQUEST = 1000;
/** Tries of one `ack` request when the broker is unreachable or answers 5xx/429, before its messages are left to expire. */
export const ACK_SEND_ATTEMPTS = 3;

export interface AckBatcherOptions {
  /** 0: send as soon as no other ack request is in flight (those that arrive meanwhile go together). */
  lingerMs: number;
  /** Send at once when this many wait. */
  maxBatch: number;
}

interface Pending {
  lease: string;
  resolve(settled: boolean): void;
  reject(error: unknown): void;
}

/**
 * Collects the leases of handled messages and acknowledges them together (`POST …/ack`), with at most one request
 * in flight per listener. `add` resolves true once the broker recorded the ack durably, false when the lease was
 * lost (the message is delivered again), and rejects when the request failed for good (the lease then expires and
 * the message is delivered again: at least once still holds).
 */
export class AckBatcher {
  private queue: Pending[] = [];
  private sending: Promise<void> | undefined;
  private timer: { cancel(): void } | undefined;

  constructor(
    private readonly send: (leases: string[]) => Promise<SettleResult>,
    private readonly options: AckBatcherOptions,
  ) {}

  add(lease: string): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ lease, resolve, reject });
      this.schedule();
    });
  }

  /** Sends everything waiting now and resolves once every ack request has been answered (or given up). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.sending !== undefined) {
      if (this.sending === undefined) this.sendNow();
      await this.sending;
    }
  }

  private schedule(): void {
    if (this.sending !== undefined || this.queue.length === 0) return;
    if (this.queue.length >= this.options.maxBatch) return this.sendNow();
    if (this.timer !== undefined) return;
    // A linger of 0 still waits for the current turn of the event loop, so acks of messages finished together
    // share a request.
    if (this.options.lingerMs === 0) {
      const immediate = setImmediate(() => this.sendNow());
      this.timer = { cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(() => this.sendNow(), this.options.lingerMs);
      this.timer = { cancel: () => clearTimeout(timeout) };
    }
  }

  private sendNow(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.sending !== undefined || this.queue.length === 0) return;
    const batch = this.queue.splice(0, MAX_ACKS_PER_REQUEST);
    this.sending = this.deliver(batch).finally(() => {
      this.sending = undefined;
      // Without a linger, what arrived meanwhile has waited long enough.
      if (this.options.lingerMs === 0) this.sendNow();
      else this.schedule();
    });
  }

  private async deliver(batch: Pending[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { lost } = await this.send(batch.map(({ lease }) => lease));
        const lostSet = new Set(lost);
        for (const pending of batch) pending.resolve(!lostSet.has(pending.lease));
        return;
      } catch (error) {
        const retriable = error instanceof BrokerRequestError && error.retriable;
        if (!retriable || attempt >= ACK_SEND_ATTEMPTS) {
          for (const pending of batch) pending.reject(error);
          return;
        }
        await sleep(pullBackoffDelay(attempt));
      }
    }
  }
}
