import { join } from 'node:path';
import { typeErrorsOf } from '@mmmq/test-support';

describe('listener typing', () => {
  it('compiles the positive cases and refuses every case marked @ts-expect-error', () => {
    expect(typeErrorsOf(join(__dirname, 'listener-typing.cases.ts'))).toEqual([]);
  }, 60_000);
});
