export { typeOrmAdapter } from './sql/typeorm-adapter';
