export { kyselyAdapter, type AnyKyselyTransaction } from './sql/kysely-adapter';
