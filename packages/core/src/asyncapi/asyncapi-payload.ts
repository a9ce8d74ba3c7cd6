import type { AsyncApiPayload } from './asyncapi-operation';

const PRIMITIVES = new Map<unknown, 'string' | 'number' | 'boolean'>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
]);

// What TypeScript records for `unknown`, `any`, interfaces and unions, and what `events` takes for any JSON.
const ANY: ReadonlySet<unknown> = new Set([undefined, null, Object, Function, Promise, Symbol, BigInt]);

/** The payload a declared type stands for: `String`, `Number`, `Boolean`, `Array`, a class, or anything else. */
export function asyncApiPayloadOf(declared: unknown): AsyncApiPayload {
  const primitive = PRIMITIVES.get(declared);
  if (primitive !== undefined) return { kind: 'primitive', name: primitive };
  if (declared === Array) return { kind: 'array' };
  if (ANY.has(declared) || typeof declared !== 'function') return { kind: 'any' };
  return { kind: 'class', type: declared };
}
