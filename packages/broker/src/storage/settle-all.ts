import { StorageError } from './storage.errors';

/** Waits for every cleanup step, even after one failed, then reports the first failure as `failure`. */
export async function settleAll(steps: readonly Promise<unknown>[], failure: string): Promise<void> {
  const results = await Promise.allSettled(steps);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw new StorageError(failure, { cause: failed.reason });
}
