import { ConsumerClosingError } from '../errors/consumer-closing.error';
import { HandlerAbandonedError } from '../errors/handler-abandoned.error';
import { QueueFullError } from '../errors/queue-full.error';

/** Messages of one lane (one listener) run one after another, or up to `concurrency` at once. */
export interface Lane {
  key: string;
  concurrency: number;
}

export interface FrontHandlerLimits {
  /** Jobs that may wait for a worker; more are refused. */
  queueSize: number;
  /** Jobs that may run at once, all lanes together. */
  maxWorkers: number;
}

/**
 * A job's task. `release()` gives up its worker and lane slot while it goes on running: it has done what the slot
 * bounds and only waits now (a `manual` handler for its acknowledgement to be durable), so the next job may start.
 */
export type JobTask<T> = (release: () => void) => Promise<T>;

interface Job {
  lane: Lane;
  task: JobTask<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  settled: boolean;
  finished?: Promise<void>;
  /** `Date.now()` when its task started. */
  startedAt?: number;
  /** It gave up its slot (see {@link JobTask}) and no longer counts against `maxWorkers` or its lane. */
  released?: boolean;
}

/** How long work has been held up, for the consumer's health indicator. */
export interface FrontHandlerStalls {
  /** Age of the longest-running handler, 0 when none runs. */
  longestRunningMs: number;
  /** How long the queue has been full without a break, 0 when it has room. */
  queueFullMs: number;
}

/**
 * The front handler on Node's event loop: a bounded FIFO queue feeding a pool of `maxWorkers` slots,
 * where each slot runs one handler at a time. Jobs of one lane start in arrival order and never more than
 * the lane's concurrency at once, so a listener with concurrency 1 handles its messages strictly one after
 * another. A job that finds no free slot and a full queue is refused at once: the caller answers 503 and the
 * broker keeps the message, so nothing is held that cannot be handled.
 */
export class FrontHandler {
  private readonly waiting: Job[] = [];
  /** Jobs whose task runs, released ones included (shutdown waits for them too). */
  private readonly running = new Set<Job>();
  /** Running jobs holding a slot. */
  private occupied = 0;
  private readonly runningPerLane = new Map<string, number>();
  /** Callers of {@link acceptWhenRoom} waiting for the queue to have room (or for shutdown). */
  private readonly roomWaiters: Array<() => void> = [];
  private closing: Promise<void> | undefined;
  /** `Date.now()` when the queue last became full; undefined while it has room. */
  private fullSince: number | undefined;

  constructor(private readonly limits: FrontHandlerLimits) {}

  /**
   * Runs `task` when a slot and its lane allow, and settles with its outcome.
   * `bounded: false` lets the job wait even when the queue is full (for senders that cannot back off).
   * @throws QueueFullError when the job cannot start and `queueSize` jobs already wait
   * @throws ConsumerClosingError once `close()` was called; HandlerAbandonedError if the task outlives the shutdown timeout
   */
  submit<T>(lane: Lane, task: JobTask<T>, { bounded = true } = {}): Promise<T> {
    try {
      return this.accept(lane, task, { bounded });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * As {@link submit}, but a refusal is thrown at once, so a caller can answer before the task has run
   * (ack mode `none`: the delivery is acknowledged as soon as it is accepted).
   * @throws QueueFullError, ConsumerClosingError synchronously
   */
  accept<T>(lane: Lane, task: JobTask<T>, { bounded = true } = {}): Promise<T> {
    if (this.closing !== undefined) {
      throw new ConsumerClosingError('The consumer is shutting down and accepts no new message; the broker will redeliver it');
    }
    if (!this.canStart(lane) && bounded && this.waiting.length >= this.limits.queueSize) {
      throw new QueueFullError(
        `${this.waiting.length} messages already wait for a worker or for their listener (queueSize ` +
          `${this.limits.queueSize}); this one was refused and the broker will send it again later`,
      );
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job = { lane, task, resolve: resolve as (value: unknown) => void, reject, settled: false };
      if (this.canStart(lane)) this.start(job);
      else this.wait(job);
    });
  }

  /**
   * As {@link accept}, but a job that would be refused for a full queue waits for room instead; resolves once the job
   * is accepted, with its outcome. For ack mode `none` on a sender that bounds its deliveries itself (a transport's
   * prefetch): a delivery is acknowledged only once it is accepted, so no more than `queueSize` wait acknowledged.
   * @throws ConsumerClosingError once `close()` was called, also while waiting
   */
  async acceptWhenRoom<T>(lane: Lane, task: JobTask<T>): Promise<{ outcome: Promise<T> }> {
    while (this.closing === undefined && !this.canStart(lane) && this.waiting.length >= this.limits.queueSize) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
    return { outcome: this.accept(lane, task) };
  }

  /** Jobs running and waiting right now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running.size, waiting: this.waiting.length };
  }

  /** Ages of what is held up right now. */
  stalls(now = Date.now()): FrontHandlerStalls {
    let oldest = now;
    for (const job of this.running) oldest = Math.min(oldest, job.startedAt ?? now);
    return { longestRunningMs: now - oldest, queueFullMs: this.fullSince === undefined ? 0 : now - this.fullSince };
  }

  /**
   * Refuses new jobs and every waiting one, then waits up to `timeoutMs` for the running ones. A job still
   * running then is settled with `HandlerAbandonedError` (its outcome is dropped when it ends), so it is never
   * reported as done. Calling it again returns the same promise.
   */
  close(timeoutMs: number): Promise<void> {
    this.closing ??= this.drain(timeoutMs);
    return this.closing;
  }

  private async drain(timeoutMs: number): Promise<void> {
    this.fullSince = undefined;
    this.wakeRoomWaiters();
    for (const job of this.waiting.splice(0)) {
      const error = new ConsumerClosingError('The consumer shut down before this message started; the broker will redeliver it');
      settle(job, 'reject', error);
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.all([...this.running].map((job) => job.finished)), timedOut]);
    clearTimeout(timer);
    for (const job of this.running) {
      settle(
        job,
        'reject',
        new HandlerAbandonedError(
          `The handler did not finish within the shutdown timeout of ${timeoutMs} ms; the message is not ` +
            `acknowledged and the broker will redeliver it`,
        ),
      );
    }
  }

  private canStart(lane: Lane): boolean {
    return this.occupied < this.limits.maxWorkers && (this.runningPerLane.get(lane.key) ?? 0) < lane.concurrency;
  }

  private wait(job: Job): void {
    this.waiting.push(job);
    if (this.waiting.length >= this.limits.queueSize) this.fullSince ??= Date.now();
  }

  private start(job: Job): void {
    job.startedAt = Date.now();
    this.running.add(job);
    this.occupied++;
    this.runningPerLane.set(job.lane.key, (this.runningPerLane.get(job.lane.key) ?? 0) + 1);
    job.finished = Promise.resolve()
      .then(() => job.task(() => this.release(job)))
      .then(
        (value) => settle(job, 'resolve', value),
        (error: unknown) => settle(job, 'reject', error),
      )
      .finally(() => {
        this.running.delete(job);
        this.release(job);
      });
  }

  /** The job's slot is free (it ended, or gave it up while it runs on): the next waiting job may start. */
  private release(job: Job): void {
    if (job.released) return;
    job.released = true;
    this.occupied--;
    const left = (this.runningPerLane.get(job.lane.key) ?? 1) - 1;
    if (left === 0) this.runningPerLane.delete(job.lane.key);
    else this.runningPerLane.set(job.lane.key, left);
    this.startWaiting();
  }

  /** Starts waiting jobs in arrival order, skipping those whose lane is at its concurrency. */
  private startWaiting(): void {
    for (let i = 0; i < this.waiting.length && this.occupied < this.limits.maxWorkers;) {
      if (this.canStart(this.waiting[i].lane)) this.start(this.waiting.splice(i, 1)[0]);
      else i++;
    }
    if (this.waiting.length === 0 || this.waiting.length < this.limits.queueSize) {
      this.fullSince = undefined;
      this.wakeRoomWaiters();
    }
  }

  private wakeRoomWaiters(): void {
    for (const wake of this.roomWaiters.splice(0)) wake();
  }
}

function settle(job: Job, how: 'resolve' | 'reject', value: unknown): void {
  if (job.settled) return;
  job.settled = true;
  job[how](value);
}
