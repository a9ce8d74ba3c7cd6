import { optionChecks } from '@mmmq/core';
import { InvalidOutboxOptionsError } from '../errors/invalid-outbox-options.error';
import { DEFAULT_SCHEMA } from '../migrations/migrate';
import type { OutboxRelayOptions } from '../relay/outbox-relay.options';
import { resolveRelayOptions } from '../relay/outbox-relay-options.resolver';
import type { MmmqOutboxOptions } from './mmmq-outbox.options';

/** Module options after validation; the relay's are checked here too, so a typo fails at bootstrap. */
export interface ResolvedOutboxOptions {
  adapter: MmmqOutboxOptions['adapter'];
  schema: string;
  relay: OutboxRelayOptions | undefined;
}

const KNOWN = new Set<keyof MmmqOutboxOptions>(['adapter', 'schema', 'relay']);
const { plainObject, refuseUnknownFields } = optionChecks(InvalidOutboxOptionsError);

/** @throws InvalidOutboxOptionsError naming the option */
export function resolveOutboxOptions(options: unknown): ResolvedOutboxOptions {
  const given = plainObject('MmmqOutboxModule options', options) as Partial<MmmqOutboxOptions>;
  refuseUnknownFields('MmmqOutboxModule options', given, KNOWN);
  const schema = given.schema ?? DEFAULT_SCHEMA;
  let relay: OutboxRelayOptions | undefined;
  if (given.relay !== undefined) {
    const relayOptions = plainObject('relay', given.relay);
    if ('schema' in relayOptions)
      throw new InvalidOutboxOptionsError("relay.schema is not an option here: the relay uses the module's schema");
    relay = { ...(relayOptions as Omit<OutboxRelayOptions, 'schema'>), schema };
    resolveRelayOptions(relay);
  }
  if (given.adapter === undefined) {
    throw new InvalidOutboxOptionsError(
      'adapter is required: pgAdapter, typeOrmAdapter (@mmmq/postgres/typeorm) or kyselyAdapter (@mmmq/postgres/kysely)',
    );
  }
  return { adapter: given.adapter, schema, relay };
}
