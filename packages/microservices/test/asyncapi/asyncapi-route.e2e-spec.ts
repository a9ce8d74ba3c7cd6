import { InvalidConsumerOptionsError, MessageContext, MMMQListener, MmmqConsumerModule, Payload } from '@mmmq/consumer';
import { InMemoryTransport } from '@mmmq/core/testing';
import { MmmqProducerModule } from '@mmmq/producer';
import { Controller, Injectable, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import { Type } from 'class-transformer';
import { IsInt, IsPositive, IsString, Min, ValidateNested } from 'class-validator';
import { asyncApiErrors } from '../../../core/test/asyncapi/validate-asyncapi';
import { MmmqServer } from '../../src';

class Customer {
  @IsString()
  name!: string;
}

class OrderPlaced {
  @IsString()
  orderId!: string;

  @IsInt()
  @Min(1)
  quantity!: number;

  @ValidateNested()
  @Type(() => Customer)
  customer!: Customer;
}

class Refund {
  @IsString()
  orderId!: string;

  @IsPositive()
  amount!: number;
}

class QuoteRequest {
  @IsString()
  sku!: string;
}

@Injectable()
class Billing {
  @MMMQListener('order.placed', { consumerId: 'shop.billing', ackMode: 'manual' })
  onPlaced(order: OrderPlaced, context: MessageContext): Promise<void> {
    void order;
    return context.ack();
  }
}

@Injectable()
class RefundListener implements MMMQListener<Refund> {
  listens(): string {
    return 'refund.*';
  }
  handle(@Payload() refund: Refund): string {
    return refund.orderId;
  }
}

@Controller()
class ShopController {
  @EventPattern('order.**')
  audit(@Payload() order: OrderPlaced): void {
    void order;
  }

  @MessagePattern('price.quote')
  quote(@Payload() request: QuoteRequest): number {
    return request.sku.length;
  }
}

type Doc = Record<string, Record<string, Record<string, any>>>;

describe('the asyncapi route of a consumer with listeners, pattern handlers and declared producer events', () => {
  const transport = new InMemoryTransport();
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    @Module({
      imports: [
        MmmqConsumerModule.forRoot({ app: 'shop', transport, asyncapi: { version: '2.1.0', description: 'The shop' } }),
        MmmqProducerModule.forRoot({ transport, events: { 'order.placed': OrderPlaced, 'audit.note': String } }),
      ],
      controllers: [ShopController],
      providers: [Billing, RefundListener],
    })
    class ShopModule {}

    app = await NestFactory.create(ShopModule, { logger: false });
    app.connectMicroservice({ strategy: new MmmqServer({ app: 'shop-rpc', transport }) });
    await app.startAllMicroservices();
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/asyncapi.json`;
  });
  afterAll(() => app.close());

  it('serves a document the AsyncAPI parser accepts, naming every listener, handler and sent topic', async () => {
    const response = await fetch(url);
    const document = (await response.json()) as Doc;

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await asyncApiErrors(document)).toEqual([]);
    expect(document.info).toEqual({ title: 'shop', version: '2.1.0', description: 'The shop' });
    expect(Object.fromEntries(Object.entries(document.channels).map(([id, channel]) => [id, channel.address]))).toEqual({
      'audit-note': 'audit.note',
      'order-all': 'order.**',
      'order-placed': 'order.placed',
      'price-quote': 'price.quote',
      'refund-any': 'refund.*',
      replies: null,
    });
  });

  it('describes each operation with its payload schema, dispatcher settings and, for @MessagePattern, its reply', async () => {
    const document = (await (await fetch(url)).json()) as Doc;
    const { operations, channels } = document;

    expect(operations['receive-order-placed']).toMatchObject({
      action: 'receive',
      messages: [{ $ref: '#/channels/order-placed/messages/OrderPlaced' }],
      'x-mmmq-source': 'Billing.onPlaced',
      'x-mmmq-consumer-id': 'shop.billing',
      'x-mmmq-ack-mode': 'manual',
      'x-mmmq-delivery': 'in-memory',
    });
    expect(operations['send-order-placed']).toMatchObject({
      action: 'send',
      messages: [{ $ref: '#/channels/order-placed/messages/OrderPlaced' }],
    });
    expect(channels['audit-note'].messages.String.payload).toEqual({ type: 'string' });
    expect(operations['receive-refund-any']).toMatchObject({
      'x-mmmq-source': 'RefundListener.handle',
      'x-mmmq-consumer-id': 'shop.refund-listener',
    });
    expect(channels['refund-any'].messages.Refund.payload).toEqual({ $ref: '#/components/schemas/Refund' });
    expect(operations['receive-order-all']).toMatchObject({
      'x-mmmq-source': '@EventPattern("order.**")',
      'x-mmmq-consumer-id': 'shop-rpc.order.all',
      'x-mmmq-delivery': 'in-memory',
      messages: [{ $ref: '#/channels/order-all/messages/OrderPlaced' }],
    });
    expect(operations['receive-order-all'].reply).toBeUndefined();
    expect(operations['receive-price-quote']).toMatchObject({
      'x-mmmq-source': '@MessagePattern("price.quote")',
      messages: [{ $ref: '#/channels/price-quote/messages/QuoteRequestRequest' }],
      reply: { address: { location: '$message.header#/mmmq-reply-to' }, channel: { $ref: '#/channels/replies' } },
    });
    expect(document.components.schemas.OrderPlaced).toMatchObject({
      properties: { quantity: { type: 'integer', minimum: 1 }, customer: { $ref: '#/components/schemas/Customer' } },
    });
    expect(document.components.schemas.Refund).toMatchObject({ properties: { amount: { exclusiveMinimum: 0 } } });
    expect(Object.keys(document.components.schemas).sort()).toEqual(['Customer', 'OrderPlaced', 'QuoteRequest', 'Refund']);
  });
});

describe('the asyncapi route of a consumer and a producer in one application', () => {
  it('refuses both at one path, naming the option and another path to give', async () => {
    const transport = new InMemoryTransport();
    @Module({
      imports: [MmmqConsumerModule.forRoot({ transport, asyncapi: true }), MmmqProducerModule.forRoot({ transport, asyncapi: true })],
    })
    class BothModule {}

    const creating = NestFactory.create(BothModule, { logger: false, abortOnError: false });

    await expect(creating).rejects.toBeInstanceOf(InvalidConsumerOptionsError);
    await expect(creating).rejects.toThrow(
      /^MmmqConsumerModule option asyncapi: GET \/asyncapi\.json is served already by MmmqAsyncApiController of MmmqProducerModule; give the consumer's another path, e\.g\. asyncapi: \{ path: 'asyncapi\/consumer\.json' \}/,
    );
  });
});
