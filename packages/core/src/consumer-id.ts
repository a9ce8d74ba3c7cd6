import { describeValue } from './errors/describe-value';
import { InvalidConsumerIdError } from './errors/invalid-consumer-id-error';

/** Consumer ids name the dispatcher's offset file, so they are an allow-list of file-name-safe characters. */
export const CONSUMER_ID_PATTERN = /^[A-Za-z0-9._-]+$/;

/** Same bound as topic names, leaving room for a file extension under the 255-byte file-name limit. */
export const CONSUMER_ID_MAX_LENGTH = 249;

// Made only of allowed characters, yet they mean "this directory" and "the parent directory".
const DIRECTORY_REFERENCES: ReadonlySet<string> = new Set(['.', '..']);

/**
 * @returns `id`, narrowed to a string
 * @throws InvalidConsumerIdError
 */
export function assertConsumerId(id: unknown): string {
  if (typeof id !== 'string') {
    throw new InvalidConsumerIdError(`Consumer id must be a string, got ${describeValue(id)}`);
  }
  if (id.length > CONSUMER_ID_MAX_LENGTH) {
    throw new InvalidConsumerIdError(`Consumer id ${describeValue(id)} is too long; the maximum is ${CONSUMER_ID_MAX_LENGTH} characters`);
  }
  if (!CONSUMER_ID_PATTERN.test(id) || DIRECTORY_REFERENCES.has(id)) {
    throw new InvalidConsumerIdError(
      `Consumer id ${describeValue(id)} is invalid; use A-Z, a-z, 0-9, '.', '_' and '-' (not empty, not "." or "..")`,
    );
  }
  return id;
}
