import {
  DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES,
  DEFAULT_CLAIM_CHECK_TTL_MS,
  describeValue as describe,
  isObjectStore,
  optionChecks,
} from '@mmmq/core';
import { InvalidProducerOptionsError } from '../errors/invalid-producer-options.error';
import type { ProducerClaimCheckOptions, ResolvedClaimCheck } from './claim-check.options';

const FIELDS: ReadonlySet<string> = new Set<keyof ProducerClaimCheckOptions>(['store', 'thresholdBytes', 'ttlMs']);
const { positiveInteger } = optionChecks(InvalidProducerOptionsError);

/**
 * Checks the `claimCheck` option and applies its defaults; absent means no claim check.
 * @throws InvalidProducerOptionsError naming the field
 */
export function resolveClaimCheck(option: unknown): ResolvedClaimCheck | undefined {
  if (option === undefined) return undefined;
  if (typeof option !== 'object' || option === null || Array.isArray(option)) {
    throw new InvalidProducerOptionsError(`claimCheck must be an object { store, thresholdBytes?, ttlMs? }, got ${describe(option)}`);
  }
  const unknown = Object.keys(option).find((key) => !FIELDS.has(key));
  if (unknown !== undefined) {
    throw new InvalidProducerOptionsError(
      `Unknown claimCheck option ${JSON.stringify(unknown)}; the options are ${[...FIELDS].join(', ')}`,
    );
  }
  const given = option as ProducerClaimCheckOptions;
  return {
    store: store(given.store),
    thresholdBytes: positiveInteger(
      'claimCheck.thresholdBytes',
      given.thresholdBytes ?? DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES,
      Number.MAX_SAFE_INTEGER,
    ),
    ttlMs: positiveInteger('claimCheck.ttlMs', given.ttlMs ?? DEFAULT_CLAIM_CHECK_TTL_MS, Number.MAX_SAFE_INTEGER),
  };
}

function store(value: unknown): ProducerClaimCheckOptions['store'] {
  if (!isObjectStore(value)) {
    throw new InvalidProducerOptionsError(
      `claimCheck.store must be an ObjectStore (put, get and delete methods), such as new FileSystemObjectStore(dir), got ` +
        `${describe(value)}`,
    );
  }
  return value;
}
