import { InMemoryTransport } from '@mmmq/core/testing';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IsString } from 'class-validator';
import { asyncApiErrors } from '../../core/test/asyncapi/validate-asyncapi';
import { InvalidProducerOptionsError, MmmqProducerModule } from '../src';

class InvoiceSent {
  @IsString()
  invoiceId!: string;
}

describe("the producer module's asyncapi route, for an application without a consumer", () => {
  let app: INestApplication;

  beforeAll(async () => {
    @Module({
      imports: [
        MmmqProducerModule.forRoot({
          transport: new InMemoryTransport(),
          events: { 'invoice.sent': InvoiceSent, 'invoice.count': Number },
          asyncapi: { path: 'docs/asyncapi.json', title: 'invoicing' },
        }),
      ],
    })
    class InvoicingModule {}
    app = await NestFactory.create(InvoicingModule, { logger: false });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('serves the declared events as send operations, in a document the AsyncAPI parser accepts', async () => {
    const response = await fetch(`${await app.getUrl()}/docs/asyncapi.json`);
    const document = (await response.json()) as any;

    expect(response.status).toBe(200);
    expect(await asyncApiErrors(document)).toEqual([]);
    expect(document.info).toEqual({ title: 'invoicing', version: '1.0.0' });
    expect(Object.values(document.operations).map((operation: any) => [operation.action, operation.channel.$ref])).toEqual([
      ['send', '#/channels/invoice-count'],
      ['send', '#/channels/invoice-sent'],
    ]);
    expect(document.channels['invoice-count'].messages.Number.payload).toEqual({ type: 'number' });
    expect(document.components.schemas.InvoiceSent).toMatchObject({ properties: { invoiceId: { type: 'string' } } });
  });

  it('refuses a wrong asyncapi option when the module is built, naming it', () => {
    expect(() => MmmqProducerModule.forRoot({ asyncapi: { route: 'x' } as never })).toThrow(InvalidProducerOptionsError);
    expect(() => MmmqProducerModule.forRoot({ asyncapi: { path: 'a//b' } })).toThrow(/^asyncapi\.path must be path segments/);
  });
});
