import type { ValueTransformer } from 'typeorm';

/** `numeric` columns come back from `pg` as strings (exact decimals); the example's amounts are small: numbers. */
export const DECIMAL_AS_NUMBER: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
