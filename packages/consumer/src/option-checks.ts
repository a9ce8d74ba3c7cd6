import { InvalidConsumerOptionsError } from './errors/invalid-consumer-options.error';

/** Checks shared by the option resolvers; each error names the option. */

export function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidConsumerOptionsError(`${name} must be a positive integer, got ${describe(value)}`);
  }
  return value;
}

export function nonNegativeInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidConsumerOptionsError(`${name} must be a non-negative integer, got ${describe(value)}`);
  }
  return value;
}

export function integerInRange(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidConsumerOptionsError(`${name} must be an integer from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

export function atMost(name: string, value: number, max: number): number {
  if (value > max) throw new InvalidConsumerOptionsError(`${name} must be at most ${max}, got ${value}`);
  return value;
}

export function oneOf<T>(name: string, value: unknown, allowed: readonly T[]): T {
  if (!(allowed as readonly unknown[]).includes(value)) {
    throw new InvalidConsumerOptionsError(
      `${name} must be one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}, got ${describe(value)}`,
    );
  }
  return value as T;
}

/** An object option; `where` names it (`pull`, `listeners["x"]`). */
export function plainObject(where: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidConsumerOptionsError(`${where} must be an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Unknown fields are typos or options of another version: refused, so they never pass silently. */
export function refuseUnknownFields(where: string, record: object, allowed: ReadonlySet<string>): void {
  const unknown = Object.keys(record).filter((key) => !allowed.has(key));
  if (unknown.length > 0) {
    throw new InvalidConsumerOptionsError(`${where} has unknown field(s) ${unknown.join(', ')}; allowed are ${[...allowed].join(', ')}`);
  }
}

export function describe(value: unknown): string {
  if (typeof value === 'string' || (typeof value === 'object' && value !== null)) {
    // A circular object cannot be printed; its kind is enough to recognise it.
    try {
      return JSON.stringify(value);
    } catch {
      return 'an object';
    }
  }
  return String(value);
}
