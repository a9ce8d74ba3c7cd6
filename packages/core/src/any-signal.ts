/** A signal that aborts when any of its sources does, and that lets go of them once disposed. */
export interface AnySignal {
  readonly signal: AbortSignal;
  /** Removes the listeners from the sources; call it once the signal is no longer needed. Idempotent. */
  dispose(): void;
}

/**
 * Like `AbortSignal.any`, which Node 20 cannot be trusted with for a long-lived source (a shutdown signal combined
 * with each request's): every call leaves an entry in the source's set of dependants that garbage collection never
 * removes, so memory grows with every request for the life of the process. Here the only trace is a listener, and
 * {@link AnySignal.dispose} removes it. Aborts at once, with the first aborted source's reason, if one already is.
 */
export function anySignal(signals: readonly AbortSignal[]): AnySignal {
  const controller = new AbortController();
  const already = signals.find((signal) => signal.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  const dispose = () => {
    for (const signal of signals) signal.removeEventListener('abort', onAbort);
  };
  const onAbort = (event: Event) => {
    dispose();
    controller.abort((event.target as AbortSignal).reason);
  };
  for (const signal of signals) signal.addEventListener('abort', onAbort);
  return { signal: controller.signal, dispose };
}
