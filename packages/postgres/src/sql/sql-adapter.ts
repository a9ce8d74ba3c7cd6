/**
 * How the outbox and the inbox run their SQL inside a transaction the user opened with their own database
 * library, so that their rows commit or roll back with the user's business rows. One small interface, one
 * implementation per library: `pgAdapter` (a `pg` client inside `BEGIN`), `typeOrmAdapter`
 * (`@mmmq/postgres/typeorm`: an `EntityManager` or `QueryRunner`) and `kyselyAdapter` (`@mmmq/postgres/kysely`:
 * a Kysely `Transaction`). Another library needs only these few lines.
 */
export interface SqlAdapter<Tx> {
  /** The library's name, for error messages. */
  readonly name: string;
  /**
   * Runs one parameterised statement (`$1`, `$2`, … placeholders) in `tx` and returns its rows (none for a
   * statement without `RETURNING`).
   *
   * @throws Error when `tx` is not inside a transaction, where the library can tell (the outbox row would
   *   commit on its own, which is the very bug the outbox exists to prevent)
   */
  query<R extends object = Record<string, unknown>>(tx: Tx, text: string, values?: readonly unknown[]): Promise<R[]>;
}
