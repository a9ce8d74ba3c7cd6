import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Min, ValidateNested } from 'class-validator';
import { buildAsyncApiDocument, PayloadSchemas, type AsyncApiOperation } from '../../src/internal';
import { asyncApiErrors } from './validate-asyncapi';

class LineItem {
  @IsString()
  sku!: string;

  @IsInt()
  @Min(1)
  quantity!: number;
}

class PlaceOrder {
  @IsString()
  orderId!: string;

  @IsIn(['EU', 'US'])
  region!: string;

  @ValidateNested({ each: true })
  @Type(() => LineItem)
  items!: LineItem[];
}

class Undecorated {
  note?: string;
}

const info = { title: 'orders', version: '1.2.3' };

function listener(address: string, more: Partial<AsyncApiOperation> = {}): AsyncApiOperation {
  return { action: 'receive', address, source: `Listener.on${address}`, payload: { kind: 'any' }, ...more };
}

type Doc = Record<string, Record<string, Record<string, unknown>>>;

describe('buildAsyncApiDocument', () => {
  it('describes a DTO payload with the JSON Schema of its class-validator rules, nested classes included', async () => {
    const document = buildAsyncApiDocument(
      [listener('order.placed', { source: 'Orders.onPlaced', payload: { kind: 'class', type: PlaceOrder }, consumerId: 'shop.orders' })],
      info,
    ) as Doc;

    expect(await asyncApiErrors(document)).toEqual([]);
    expect(document.channels['order-placed']).toMatchObject({
      address: 'order.placed',
      messages: { PlaceOrder: { payload: { $ref: '#/components/schemas/PlaceOrder' } } },
    });
    expect(document.components.schemas.PlaceOrder).toMatchObject({
      properties: {
        orderId: { type: 'string' },
        region: { enum: ['EU', 'US'] },
        items: { type: 'array', items: { $ref: '#/components/schemas/LineItem' } },
      },
      required: expect.arrayContaining(['orderId', 'region', 'items']),
    });
    expect(document.components.schemas.LineItem).toMatchObject({ properties: { quantity: { type: 'integer', minimum: 1 } } });
    expect(document.operations['receive-order-placed']).toMatchObject({
      action: 'receive',
      channel: { $ref: '#/channels/order-placed' },
      messages: [{ $ref: '#/channels/order-placed/messages/PlaceOrder' }],
      'x-mmmq-consumer-id': 'shop.orders',
      'x-mmmq-source': 'Orders.onPlaced',
    });
  });

  it('keeps wildcard patterns as channel addresses under keys AsyncAPI accepts', async () => {
    const document = buildAsyncApiDocument([listener('order.*'), listener('news.**'), listener('log.?x')], info) as Doc;

    expect(await asyncApiErrors(document)).toEqual([]);
    expect(Object.keys(document.channels).sort()).toEqual(['log-onex', 'news-all', 'order-any']);
    expect(document.channels['order-any'].address).toBe('order.*');
    expect(document.channels['news-all'].description).toContain('matching the pattern news.**');
  });

  it('gives a request/reply handler a reply to the inbox its mmmq-reply-to header names', async () => {
    const document = buildAsyncApiDocument([listener('sum', { payload: { kind: 'array' }, replies: true })], info) as Doc;

    expect(await asyncApiErrors(document)).toEqual([]);
    const request = document.channels.sum.messages as Record<string, Record<string, unknown>>;
    expect(request.ArrayRequest).toMatchObject({
      correlationId: { location: '$message.header#/mmmq-correlation-id' },
      headers: { required: ['mmmq-reply-to', 'mmmq-correlation-id'] },
    });
    expect(document.operations['receive-sum'].reply).toMatchObject({
      address: { location: '$message.header#/mmmq-reply-to' },
      channel: { $ref: '#/channels/replies' },
    });
    expect(document.channels.replies.address).toBeNull();
  });

  it('puts the listeners and the sends of one topic on one channel, each operation under its own key', async () => {
    const document = buildAsyncApiDocument(
      [
        listener('order.placed', { source: 'B.on' }),
        listener('order.placed', { source: 'A.on', payload: { kind: 'class', type: PlaceOrder } }),
        { action: 'send', address: 'order.placed', source: 'MmmqProducerModule events', payload: { kind: 'class', type: PlaceOrder } },
      ],
      info,
    ) as Doc;

    expect(await asyncApiErrors(document)).toEqual([]);
    expect(Object.keys(document.channels)).toEqual(['order-placed']);
    expect(Object.keys(document.channels['order-placed'].messages as object).sort()).toEqual(['Json', 'PlaceOrder']);
    expect(Object.keys(document.operations)).toEqual(['receive-order-placed', 'receive-order-placed-2', 'send-order-placed']);
    expect(document.operations['send-order-placed'].action).toBe('send');
  });

  it('describes a class as a titled object when class-validator-jsonschema is not installed', async () => {
    const missing = (id: string) => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
    };
    const schemas = new PayloadSchemas(missing);
    const document = buildAsyncApiDocument(
      [listener('order.placed', { payload: { kind: 'class', type: PlaceOrder } })],
      info,
      schemas,
    ) as Doc;

    expect(schemas.converting).toBe(false);
    expect(await asyncApiErrors(document)).toEqual([]);
    expect(document.components.schemas).toEqual({ PlaceOrder: { type: 'object', title: 'PlaceOrder' } });
  });

  it('describes a class without class-validator decorators as a titled object', async () => {
    const document = buildAsyncApiDocument([listener('note', { payload: { kind: 'class', type: Undecorated } })], info) as Doc;

    expect(await asyncApiErrors(document)).toEqual([]);
    expect(document.components.schemas.Undecorated).toEqual({ type: 'object', title: 'Undecorated' });
  });

  it('is a valid document with no operation at all', async () => {
    const document = buildAsyncApiDocument([], info);

    expect(await asyncApiErrors(document)).toEqual([]);
    expect(document).toMatchObject({ asyncapi: '3.0.0', info, channels: {}, operations: {} });
  });
});
