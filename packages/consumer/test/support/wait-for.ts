import { waitFor as waitUntil } from '@mmmq/test-support';

export { flushPromises } from '@mmmq/test-support';

/** `waitFor` of @mmmq/test-support in the positional form the consumer's tests use. */
export const waitFor = (predicate: () => boolean | Promise<boolean>, what: string, deadlineMs?: number): Promise<void> =>
  waitUntil(predicate, { message: what, deadlineMs });
