import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Transform } from 'class-transformer';
import { contentTypeOf } from '../../src/listener/content-type';
import { convertContent, MAX_REPORTED_VIOLATIONS } from '../../src/handling/content-converter';
import { OrderCreated, validOrder } from '../support/order-created.dto';

class ManyFields {
  @IsString() a!: string;
  @IsString() b!: string;
  @IsString() c!: string;
  @IsString() d!: string;
  @IsString() e!: string;
  @IsString() f!: string;
  @IsString() g!: string;
  @IsString() h!: string;
  @IsString() i!: string;
  @IsString() j!: string;
  @IsString() k!: string;
  @IsString() l!: string;
}

class Exploding {
  @Transform(() => {
    throw new Error('cannot parse the date');
  })
  at!: Date;
}

describe('convertContent', () => {
  it('converts a valid object to an instance of the declared class, keeping unknown properties', async () => {
    const conversion = await convertContent(contentTypeOf(OrderCreated), { ...validOrder(), note: 'kept' });
    expect(conversion.valid).toBe(true);
    const order = (conversion as { value: OrderCreated }).value;
    expect(order).toBeInstanceOf(OrderCreated);
    expect(order.summary).toBe('2 × o-1 for Ada');
    expect(order).toHaveProperty('note', 'kept');
  });

  it.each([
    [null, 'null'],
    [[validOrder()], 'an array'],
    ['o-1', 'a string'],
  ])('refuses %j where a class is declared', async (content, kind) => {
    expect(await convertContent(contentTypeOf(OrderCreated), content)).toEqual({
      valid: false,
      reason: `content must be OrderCreated, got ${kind}`,
    });
  });

  it('reports at most MAX_REPORTED_VIOLATIONS violations and counts the rest', async () => {
    const conversion = await convertContent(contentTypeOf(ManyFields), {});
    expect(conversion.valid).toBe(false);
    const reason = (conversion as { reason: string }).reason;
    expect(reason.split('; ')).toHaveLength(MAX_REPORTED_VIOLATIONS + 1);
    expect(reason).toMatch(/; and 2 more$/);
  });

  it('turns a conversion that throws into a refusal', async () => {
    expect(await convertContent(contentTypeOf(Exploding), { at: 'yesterday' })).toEqual({
      valid: false,
      reason: 'content could not be converted to Exploding: cannot parse the date',
    });
  });

  it('checks declared primitives and arrays', async () => {
    expect(await convertContent(contentTypeOf(String), 'x')).toEqual({ valid: true, value: 'x' });
    expect(await convertContent(contentTypeOf(Number), '1')).toEqual({ valid: false, reason: 'content must be a number, got a string' });
    expect(await convertContent(contentTypeOf(Array), {})).toEqual({ valid: false, reason: 'content must be an array, got an object' });
  });

  it('passes undeclared content as it is', async () => {
    const content = { any: ['thing'] };
    expect(await convertContent(contentTypeOf(Object), content)).toEqual({ valid: true, value: content });
    expect(await convertContent(contentTypeOf(undefined), 7)).toEqual({ valid: true, value: 7 });
  });
});
