import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import { describe, plainObject, refuseUnknownFields } from './option-checks';

/** Path segments of letters, digits, `-`, `_` and `.`, separated by single slashes (the broker's rule). */
const ENDPOINT_PATH = /^[\w.-]+(\/[\w.-]+)*$/;

/**
 * What `health` and `metrics` share: `undefined`/`false` is off, `true` is every default, an object is on unless its
 * `enabled` is false; unknown keys are refused. (`asyncapi`, shared with the producer, is read by core's resolver.)
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

/** The options that shape the module (its routes), so they are read when it is built, not from an options factory. */
const MODULE_SHAPING_OPTIONS = ['health', 'metrics', 'asyncapi'] as const;

/**
 * `health`, `metrics` and `asyncapi` reach the validated options only from a `forRootAsync` factory's result (`forRoot`
 * and the async options take them out), too late to add routes: named here rather than as an unknown option.
 * @throws InvalidConsumerOptionsError naming the option
 */
export function refuseModuleShapingOptions(options: object): void {
  const given = MODULE_SHAPING_OPTIONS.find((option) => Object.hasOwn(options, option));
  if (given === undefined) return;
  throw new InvalidConsumerOptionsError(
    `${given} must be given beside useFactory (forRootAsync({ useFactory, ${given} })), not in the factory's result: ` +
      `the routes exist or not when the module is built, before the factory runs`,
  );
}
