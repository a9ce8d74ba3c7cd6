import type { Type } from '@nestjs/common';

/**
 * What a listener declared its content to be, read from its first parameter: a class to convert to and
 * validate, a JSON primitive or array to check, or anything.
 */
export type ContentType =
  | { kind: 'any' }
  | { kind: 'primitive'; name: 'string' | 'number' | 'boolean' }
  | { kind: 'array' }
  | { kind: 'class'; type: Type<object> };

const PRIMITIVES = new Map<unknown, 'string' | 'number' | 'boolean'>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
]);

// What TypeScript records for `unknown`, `any`, interfaces, unions, functions and the like: nothing to enforce.
const UNCHECKED: ReadonlySet<unknown> = new Set([undefined, null, Object, Function, Promise, Symbol, BigInt]);

/** Maps a recorded `design:paramtypes` entry (or an explicit `contentType`) to what is enforced. */
export function contentTypeOf(declared: unknown): ContentType {
  const primitive = PRIMITIVES.get(declared);
  if (primitive !== undefined) return { kind: 'primitive', name: primitive };
  if (declared === Array) return { kind: 'array' };
  if (UNCHECKED.has(declared) || typeof declared !== 'function') return { kind: 'any' };
  return { kind: 'class', type: declared as Type<object> };
}

/** For log lines and error messages. */
export function describeContentType(contentType: ContentType): string {
  switch (contentType.kind) {
    case 'any':
      return 'any JSON';
    case 'primitive':
      return `a ${contentType.name}`;
    case 'array':
      return 'an array';
    case 'class':
      return contentType.type.name;
  }
}
