import type { AsyncApiPayload } from './asyncapi-operation';

/** The optional peer dependency that turns class-validator DTOs into JSON Schemas. */
export const JSONSCHEMA_CONVERTER_PACKAGE = 'class-validator-jsonschema';

/** Where the document keeps the DTOs' schemas; each payload refers to its class's. */
export const SCHEMA_POINTER_PREFIX = '#/components/schemas/';

type Schema = Record<string, unknown>;
type Converter = { validationMetadatasToSchemas(options?: object): Record<string, Schema> };

/**
 * JSON Schemas of payloads. A class's comes from its class-validator decorators through class-validator-jsonschema
 * (nested `@ValidateNested() @Type(() => Item)` classes too, with class-transformer's metadata); without that package,
 * or for a class without decorators, it is an object schema with the class's name as title and nothing checked.
 */
export class PayloadSchemas {
  /** True when class-validator-jsonschema was found: class payloads are described property by property. */
  readonly converting: boolean;
  private readonly known: Record<string, Schema>;
  private readonly used = new Map<string, Schema>();

  /** @param load how the optional peers are loaded (a test replaces it to simulate a missing package) */
  constructor(load: (id: string) => unknown = require) {
    const converter = optional<Converter>(load, JSONSCHEMA_CONVERTER_PACKAGE);
    const transformer = optional<{ defaultMetadataStorage?: unknown }>(load, 'class-transformer/cjs/storage');
    this.converting = converter !== undefined;
    this.known =
      converter?.validationMetadatasToSchemas({
        refPointerPrefix: SCHEMA_POINTER_PREFIX,
        ...(transformer?.defaultMetadataStorage === undefined
          ? {}
          : { classTransformerMetadataStorage: transformer.defaultMetadataStorage }),
      }) ?? {};
  }

  /** The payload's schema: a reference to a class's (kept for {@link components}), a primitive's, or `{}` for any JSON. */
  schemaOf(payload: AsyncApiPayload): Schema {
    switch (payload.kind) {
      case 'any':
        return {};
      case 'primitive':
        return { type: payload.name };
      case 'array':
        return { type: 'array' };
      case 'class':
        this.use(payload.type.name, payload.type.name);
        return { $ref: `${SCHEMA_POINTER_PREFIX}${payload.type.name}` };
    }
  }

  /** The schemas referred to so far, with those they refer to in turn. */
  components(): Record<string, Schema> {
    return Object.fromEntries([...this.used].sort(([a], [b]) => a.localeCompare(b)));
  }

  private use(name: string, title: string): void {
    if (this.used.has(name)) return;
    const schema = this.known[name] ?? { type: 'object', title };
    this.used.set(name, schema);
    for (const nested of references(schema)) this.use(nested, nested);
  }
}

/** The class names a schema refers to (`$ref: '#/components/schemas/Item'`), at any depth. */
function references(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(references);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_POINTER_PREFIX)
      ? [inner.slice(SCHEMA_POINTER_PREFIX.length)]
      : references(inner),
  );
}

/** Only the package itself missing counts as absent: a broken install keeps its own error. */
function optional<T>(load: (id: string) => unknown, id: string): T | undefined {
  try {
    return load(id) as T;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: string };
    if (code === 'MODULE_NOT_FOUND' && (message ?? '').includes(`'${id}'`)) return undefined;
    throw error;
  }
}
