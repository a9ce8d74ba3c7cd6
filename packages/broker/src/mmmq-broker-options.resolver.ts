import { resolve } from 'node:path';
import { InvalidBrokerOptionsError } from './invalid-broker-options.error';
import {
  DEFAULT_MAX_BATCH_MESSAGES,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_ROOT_DIR,
  DEFAULT_SEGMENT_MAX_BYTES,
  MmmqBrokerOptions,
  ResolvedHttpOptions,
  ResolvedPersistenceOptions,
} from './mmmq-broker.options';

/** The whole body is buffered in memory, and a stored entry's 32-bit length field caps it well above this. */
export const MAX_BODY_BYTES_LIMIT = 1024 * 1024 * 1024;

export interface ResolvedBrokerOptions {
  persistence: ResolvedPersistenceOptions;
  http: ResolvedHttpOptions;
}

/**
 * Applies defaults and checks every option, naming the offending one, so a typo fails at bootstrap instead of
 * on the first publish.
 *
 * @throws InvalidBrokerOptionsError
 */
export function resolveBrokerOptions(options: MmmqBrokerOptions = {}): ResolvedBrokerOptions {
  const { persistence = {}, http = {} } = options;
  const rootDir = persistence.rootDir ?? DEFAULT_ROOT_DIR;
  const segmentMaxBytes = persistence.segment?.maxBytes ?? DEFAULT_SEGMENT_MAX_BYTES;
  return {
    persistence: {
      rootDir: resolve(nonBlankString('persistence.rootDir', rootDir)),
      segmentMaxBytes: positiveInteger('persistence.segment.maxBytes', segmentMaxBytes),
    },
    http: {
      maxBodyBytes: positiveInteger(
        'http.maxBodyBytes',
        http.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        MAX_BODY_BYTES_LIMIT,
      ),
      maxJsonDepth: positiveInteger('http.maxJsonDepth', http.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH),
      maxBatchMessages: positiveInteger('http.maxBatchMessages', http.maxBatchMessages ?? DEFAULT_MAX_BATCH_MESSAGES),
    },
  };
}

function nonBlankString(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidBrokerOptionsError(`${name} must be a non-blank string, got ${describe(value)}`);
  }
  return value;
}

function positiveInteger(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidBrokerOptionsError(`${name} must be a positive integer, got ${describe(value)}`);
  }
  if (value > max) throw new InvalidBrokerOptionsError(`${name} must be at most ${max}, got ${value}`);
  return value;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
