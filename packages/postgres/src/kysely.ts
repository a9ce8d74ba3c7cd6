export { kyselyAdapter } from './sql/kysely-adapter';
