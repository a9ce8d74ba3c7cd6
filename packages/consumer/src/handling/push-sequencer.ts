import { PushOutOfOrderError } from '../errors/push-out-of-order.error';

/** How long a push waits for the push numbered before it to arrive before it is refused. */
export const PUSH_ORDER_WAIT_MS = 10_000;

/** What a push ahead of its turn waits on. */
interface Waiter {
  start(): void;
  refuse(error: PushOutOfOrderError): void;
}

/** The pushes of one session of one subscription (a consumer id and a topic). */
class SessionLane {
  /** The sequence number that may start next. */
  private next = 0;
  /** Settles when the push started last has been handled (or failed). */
  private tail: Promise<void>;
  private readonly waiting = new Map<number, Waiter>();
  private failure?: PushOutOfOrderError;

  constructor(
    readonly session: string,
    previous: Promise<void>,
    private readonly waitMs: number,
  ) {
    // A push of an earlier session that is still being handled finishes before this session's first one starts.
    this.tail = previous;
  }

  async run<T>(sequence: number, task: () => Promise<T>): Promise<T> {
    if (this.failure) throw this.failure;
    if (sequence < this.next || this.waiting.has(sequence)) {
      throw new PushOutOfOrderError(`Push ${sequence} of session ${this.session} was received before; this copy was not handled`);
    }
    if (sequence > this.next) await this.awaitTurn(sequence);
    this.next = sequence + 1;
    const handled = this.tail.then(() => {
      if (this.failure) throw this.failure;
      return task();
    });
    this.tail = handled.then(
      () => undefined,
      () =>
        this.fail(
          new PushOutOfOrderError(
            `Push ${sequence} of session ${this.session} failed, so the pushes after it were not handled; the broker resends them`,
          ),
        ),
    );
    this.waiting.get(this.next)?.start();
    return handled;
  }

  /** Refuses every push of this session not started yet, and those that arrive later. */
  fail(error: PushOutOfOrderError): void {
    this.failure ??= error;
    for (const waiter of [...this.waiting.values()]) waiter.refuse(this.failure);
  }

  /** The handling of the last push started, for the session that replaces this one. */
  get idle(): Promise<void> {
    return this.tail;
  }

  private awaitTurn(sequence: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          waiter.refuse(
            new PushOutOfOrderError(
              `Push ${sequence} of session ${this.session} waited ${this.waitMs} ms for push ${this.next}; it was not handled`,
            ),
          ),
        this.waitMs,
      );
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(sequence);
      };
      const waiter: Waiter = {
        start: () => {
          done();
          resolve();
        },
        refuse: (error) => {
          done();
          reject(error);
        },
      };
      this.waiting.set(sequence, waiter);
    });
  }
}

/**
 * Handles the pushes of a subscription in the order the broker numbered them, for dispatchers with several
 * pushes in flight (`maxInFlight` > 1): they may arrive on different connections in any order, and a push only
 * starts once the one before it in its session has been handled. A push that fails ends its session: the
 * pushes after it are refused (503) and the broker resends them all in a new session, which starts once the
 * last push of the old one is done.
 */
export class PushSequencer {
  private readonly lanes = new Map<string, SessionLane>();

  constructor(private readonly waitMs: number = PUSH_ORDER_WAIT_MS) {}

  run<T>(consumerId: string, topic: string, order: { session: string; sequence: number }, task: () => Promise<T>): Promise<T> {
    const key = `${consumerId}\n${topic}`;
    let lane = this.lanes.get(key);
    if (lane?.session !== order.session) {
      lane?.fail(new PushOutOfOrderError(`Session ${lane.session} was replaced by session ${order.session}; the broker resends this push`));
      lane = new SessionLane(order.session, lane?.idle ?? Promise.resolve(), this.waitMs);
      this.lanes.set(key, lane);
    }
    return lane.run(order.sequence, task);
  }
}
