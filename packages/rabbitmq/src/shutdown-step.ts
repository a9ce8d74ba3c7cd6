/**
 * The longest shutdown waits for one answer of RabbitMQ (`basic.cancel`, `channel.close`, `connection.close`): on a
 * half-open connection (a dead host before heartbeats notice) none comes, and shutdown must not hang on it.
 */
export const SHUTDOWN_STEP_TIMEOUT_MS = 5_000;

/** Waits for `step` at most `timeoutMs`; its failure or lateness is not the caller's concern (shutdown goes on). */
export async function bounded(step: Promise<unknown>, timeoutMs = SHUTDOWN_STEP_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([step.catch(() => undefined), late]);
  clearTimeout(timer);
}
