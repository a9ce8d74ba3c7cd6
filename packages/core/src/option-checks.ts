import { describeValue } from './errors/describe-value';

/**
 * Longest delay Node's timers keep: anything above a signed 32-bit number of milliseconds fires at once, with a
 * warning, so every option that ends up in a timer is capped here.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The error class a package throws for a bad option (`InvalidConsumerOptionsError`, …). */
export type OptionErrorClass = new (message: string, options?: { cause?: unknown }) => Error;

/** Checks of one option value each; every failure names the option and quotes the value it got. */
export interface OptionChecks {
  positiveInteger(name: string, value: unknown, max?: number): number;
  nonNegativeInteger(name: string, value: unknown, max?: number): number;
  integerInRange(name: string, value: unknown, min: number, max: number): number;
  atMost(name: string, value: number, max: number): number;
  oneOf<T>(name: string, value: unknown, allowed: readonly T[]): T;
  nonBlankString(name: string, value: unknown): string;
  /** An object option; `where` names it (`pull`, `listeners["x"]`). */
  plainObject(where: string, value: unknown): Record<string, unknown>;
  /** Unknown fields are typos or options of another version: refused, so they never pass silently. */
  refuseUnknownFields(where: string, record: object, allowed: ReadonlySet<string>): void;
}

/**
 * The option checks of one package, throwing that package's error: the producer, the consumer and the broker
 * validate their options at bootstrap with the same rules and the same wording.
 */
export function optionChecks(InvalidOptions: OptionErrorClass): OptionChecks {
  const fail = (message: string): never => {
    throw new InvalidOptions(message);
  };
  const atMost = (name: string, value: number, max: number): number =>
    value > max ? fail(`${name} must be at most ${max}, got ${value}`) : value;
  return {
    positiveInteger(name, value, max = Number.MAX_SAFE_INTEGER) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
        return fail(`${name} must be a positive integer, got ${describeValue(value)}`);
      }
      return atMost(name, value, max);
    },
    nonNegativeInteger(name, value, max = Number.MAX_SAFE_INTEGER) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        return fail(`${name} must be a non-negative integer, got ${describeValue(value)}`);
      }
      return atMost(name, value, max);
    },
    integerInRange(name, value, min, max) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
        return fail(`${name} must be an integer from ${min} to ${max}, got ${describeValue(value)}`);
      }
      return value;
    },
    atMost,
    oneOf<T>(name: string, value: unknown, allowed: readonly T[]): T {
      if (!(allowed as readonly unknown[]).includes(value)) {
        return fail(`${name} must be one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}, got ${describeValue(value)}`);
      }
      return value as T;
    },
    nonBlankString(name, value) {
      if (typeof value !== 'string' || value.trim() === '') return fail(`${name} must be a non-blank string, got ${describeValue(value)}`);
      return value;
    },
    plainObject(where, value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return fail(`${where} must be an object, got ${describeValue(value)}`);
      }
      return value as Record<string, unknown>;
    },
    refuseUnknownFields(where, record, allowed) {
      const unknown = Object.keys(record).filter((key) => !allowed.has(key));
      if (unknown.length > 0) fail(`${where} has unknown field(s) ${unknown.join(', ')}; allowed are ${[...allowed].join(', ')}`);
    },
  };
}
