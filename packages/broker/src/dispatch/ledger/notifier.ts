/** Wakes whoever waits for "something changed" (new messages, a release, a delay over). One-shot per wait. */
export class Notifier {
  private readonly waiters = new Set<() => void>();

  /** Resolves at the next `notify`, after `ms`, or when `signal` aborts — whichever comes first. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
      if (signal?.aborted) done();
    });
  }

  /**
   * Calls `listener` at every `notify` until the returned function is called: for a waiter that watches several
   * notifiers on a hot path, without a timer or an abort signal per wait.
   */
  listen(listener: () => void): () => void {
    this.waiters.add(listener);
    return () => this.waiters.delete(listener);
  }

  notify(): void {
    if (this.waiters.size === 0) return;
    for (const waiter of [...this.waiters]) waiter();
  }
}
