import type { OutboxRelayOptions } from '../relay/outbox-relay.options';
import type { SqlAdapter } from '../sql/sql-adapter';

/** Options of `MmmqOutboxModule.forRoot()` / `forRootAsync()`. */
export interface MmmqOutboxOptions<Tx = unknown> {
  /** How `Outbox.add()` runs SQL in your transaction: `pgAdapter`, `typeOrmAdapter`, `kyselyAdapter` or your own. */
  adapter: SqlAdapter<Tx>;
  /** The schema `migrate()` created the table in. Default `public`. */
  schema?: string;
  /**
   * Run an `OutboxRelay` in this application: started at bootstrap, closed at shutdown. Leave it out where
   * another process relays. Its `schema` is the module's.
   */
  relay?: Omit<OutboxRelayOptions, 'schema'>;
}
