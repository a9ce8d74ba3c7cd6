import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { ContentType, describeContentType } from '../listener/content-type';

/** The content as the handler declared it, or why it cannot be. */
export type Conversion = { valid: true; value: unknown } | { valid: false; reason: string };

/** Violations are listed up to this many and the rest counted, so a huge invalid payload cannot flood a NACK. */
export const MAX_REPORTED_VIOLATIONS = 10;

/**
 * Turns parsed JSON content into what the handler declared: an instance of its class, converted with
 * class-transformer and checked with class-validator (unknown properties are kept, not an error), or a
 * JSON primitive or array of the declared kind. Undeclared (`unknown`, interfaces) content passes as is.
 * Only a class is checked asynchronously: the other kinds answer at once, with no promise per message.
 */
export function convertContent(contentType: ContentType, content: unknown): Conversion | Promise<Conversion> {
  switch (contentType.kind) {
    case 'any':
      return { valid: true, value: content };
    case 'primitive':
      return typeof content === contentType.name ? { valid: true, value: content } : mismatch(contentType, content);
    case 'array':
      return Array.isArray(content) ? { valid: true, value: content } : mismatch(contentType, content);
    case 'class': {
      if (typeof content !== 'object' || content === null || Array.isArray(content)) return mismatch(contentType, content);
      return toInstance(contentType.type, content);
    }
  }
}

async function toInstance(type: Type<object>, content: object): Promise<Conversion> {
  let errors: ValidationError[];
  let instance: object;
  try {
    instance = plainToInstance(type, content);
    errors = await validate(instance, { whitelist: false, forbidUnknownValues: false });
  } catch (error) {
    // A `@Transform` or custom validator that throws on this content will throw on every retry as well.
    return { valid: false, reason: `content could not be converted to ${type.name}: ${(error as Error)?.message ?? String(error)}` };
  }
  if (errors.length === 0) return { valid: true, value: instance };
  return { valid: false, reason: `content is not a valid ${type.name}: ${describeViolations(errors)}` };
}

function mismatch(contentType: ContentType, content: unknown): Conversion {
  return { valid: false, reason: `content must be ${describeContentType(contentType)}, got ${kindOf(content)}` };
}

function kindOf(content: unknown): string {
  if (content === null) return 'null';
  if (Array.isArray(content)) return 'an array';
  return typeof content === 'object' ? 'an object' : `a ${typeof content}`;
}

export function describeViolations(errors: readonly ValidationError[]): string {
  const violations = flatten(errors, '');
  const shown = violations.slice(0, MAX_REPORTED_VIOLATIONS).join('; ');
  const more = violations.length - MAX_REPORTED_VIOLATIONS;
  return more > 0 ? `${shown}; and ${more} more` : shown;
}

/** class-validator nests the errors of nested objects; a flat `path: message` list reads better in a dead letter. */
function flatten(errors: readonly ValidationError[], parent: string): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => `${path}: ${message}`);
    return [...own, ...flatten(error.children ?? [], path)];
  });
}
