import { InvalidArgumentError } from 'commander';

/** A commander argument parser for integers from `min`, naming the option in its error (a usage error). */
function integerFrom(min: number, name: string): (value: string) => number {
  return (value: string) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min) {
      throw new InvalidArgumentError(`${name} must be an integer of at least ${min}, got ${JSON.stringify(value)}`);
    }
    return parsed;
  };
}

export const nonNegativeInteger = (name: string) => integerFrom(0, name);
export const positiveInteger = (name: string) => integerFrom(1, name);
