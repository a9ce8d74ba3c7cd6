import { PushRouteConflictError, RequestTap } from '@mmmq/core';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createServer } from 'node:http';
import { MmmqConsumerModule, MMMQListener } from '../../src';

@Injectable()
class Billing {
  @MMMQListener('order.*', { consumerId: 'billing' })
  onOrder(): void {}
}

describe('two modules that would take the pushes of one consumer id', () => {
  it('fail when the second claims it, naming both and the fix', () => {
    const tap = RequestTap.of(createServer());
    tap.add(() => false, new Map([['billing', 'MmmqConsumerModule (Billing.onOrder)']]));
    const second = () => tap.add(() => false, new Map([['billing', 'MmmqServer (@EventPattern order.*)']]));
    expect(second).toThrow(PushRouteConflictError);
    expect(second).toThrow(
      'Two modules of this application take the pushes of consumer id "billing": MmmqConsumerModule (Billing.onOrder) ' +
        'and MmmqServer (@EventPattern order.*); only the first would ever receive them. Give one of them another ' +
        'consumerId, keep the handler in one module, or import MmmqConsumerModule.forRoot() once (a second import ' +
        'discovers the same listeners)',
    );
  });

  it('fail bootstrap when two consumer modules of one application serve the same listener', async () => {
    @Module({ imports: [MmmqConsumerModule.forRoot({ app: 'shop' })], providers: [Billing] })
    class BillingModule {}
    @Module({ imports: [MmmqConsumerModule.forRoot({ app: 'shop' })] })
    class ReportsModule {}
    @Module({ imports: [BillingModule, ReportsModule] })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
    try {
      await expect(app.init()).rejects.toThrow(
        'Two modules of this application take the pushes of consumer id "billing": MmmqConsumerModule (Billing.onOrder) and',
      );
    } finally {
      await app.close();
    }
  });
});
