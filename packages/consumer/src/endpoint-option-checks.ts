import { InvalidConsumerOptionsError } from './errors/invalid-consumer-options.error';
import { describe, plainObject, refuseUnknownFields } from './option-checks';

/** Path segments of letters, digits, `-`, `_` and `.`, separated by single slashes (the broker's rule). */
const ENDPOINT_PATH = /^[\w.-]+(\/[\w.-]+)*$/;

/**
 * What `health` and `metrics` share: `undefined`/`false` is off, `true` is every default, an object is on unless its
 * `enabled` is false; unknown keys are refused.
 * @throws InvalidConsumerOptionsError naming the option
 */
export function endpointOptions(option: string, value: unknown, fields: ReadonlySet<string>): Record<string, unknown> | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidConsumerOptionsError(
      `${option} must be true, false or an object { ${[...fields].join(', ')} }, got ${describe(value)}`,
    );
  }
  const options = plainObject(option, value);
  refuseUnknownFields(option, options, fields);
  const { enabled = true } = options;
  if (typeof enabled !== 'boolean')
    throw new InvalidConsumerOptionsError(`${option}.enabled must be true or false, got ${describe(enabled)}`);
  return enabled ? options : undefined;
}

/** @throws InvalidConsumerOptionsError naming the option */
export function endpointPath(option: string, path: unknown): string {
  if (typeof path !== 'string' || !ENDPOINT_PATH.test(path)) {
    throw new InvalidConsumerOptionsError(
      `${option} must be path segments (letters, digits, - _ .) separated by /, without leading or trailing slash, got ${describe(path)}`,
    );
  }
  return path;
}
