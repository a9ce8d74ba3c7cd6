export type { SqlAdapter } from './sql/sql-adapter';
export { pgAdapter } from './sql/pg-adapter';
export { migrate, MIGRATIONS_DIRECTORY, DEFAULT_SCHEMA, type MigrateOptions, type MigrateResult } from './migrations/migrate';
