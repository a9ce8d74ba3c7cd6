/**
 * The longest stretch of selector evaluation, summed over every subscription of the process, before the event loop
 * gets a turn. One evaluation costs up to about a millisecond at the selector and header size limits, and a read
 * evaluates up to a thousand messages per subscription: without a budget, ten dispatchers with heavy selectors held
 * publishes up for a second.
 */
export const SELECTOR_TURN_BUDGET_MS = 4;

/** When the current turn's selector work began; undefined once the event loop has turned since. */
let turnStart: number | undefined;

/**
 * Whether the selector work of this event-loop turn has used up {@link SELECTOR_TURN_BUDGET_MS}; the first call of a
 * turn starts its clock. Shared by all readers, so that ten subscriptions do not each take a full budget in one turn.
 */
export function selectorTurnSpent(): boolean {
  const now = performance.now();
  if (turnStart === undefined) {
    turnStart = now;
    // Queued before any reader's own yield: the budget is fresh again when the first of them resumes.
    setImmediate(() => {
      turnStart = undefined;
    });
    return false;
  }
  return now - turnStart >= SELECTOR_TURN_BUDGET_MS;
}

/** Resolves in a later turn of the event loop, after pending I/O (publishes, HTTP requests, timers) had its turn. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
