import { join } from 'node:path';
import { typeErrorsOf } from '@mmmq/test-support';

describe('the typing of produce() and produceBatch() by deliveryMode', () => {
  it('gives a persistent ACK, the default, a number offset, and a nonPersistent one none', () => {
    expect(typeErrorsOf(join(__dirname, 'produce-typing.cases.ts'))).toEqual([]);
  }, 60_000);
});
