import { MmmqConsumerModule } from '@mmmq/consumer';
import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { MmmqProducerModule } from '@mmmq/producer';
import { Test } from '@nestjs/testing';
import { BillingModule } from '../src/billing/billing.module';
import { Ledger } from '../src/billing/ledger';
import { OrdersModule } from '../src/orders/orders.module';
import { OrdersService } from '../src/orders/orders.service';

describe('the example without a broker (MmmqTestingModule)', () => {
  it('bills orders and dead-letters an invalid event, all in memory', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        MmmqTestingModule.forRoot(),
        MmmqProducerModule.forRoot({ isGlobal: true }),
        MmmqConsumerModule.forRoot({ app: 'example' }),
        OrdersModule,
        BillingModule,
      ],
    }).compile();
    const app = await moduleRef.init();
    const broker = app.get(InMemoryBroker);

    const order = await app.get(OrdersService).place('lamp', 30);
    broker.publish({ topic: 'order.created', content: { orderId: 'x', item: 'ghost', amount: -1 } });
    await broker.drain();

    expect(app.get(Ledger).entries).toEqual([{ orderId: order.orderId, kind: 'invoice', amount: 30 }]);
    expect(broker.published('order.created')).toHaveLength(2);
    expect(broker.deadLetters()).toEqual([
      expect.objectContaining({ reason: 'REJECTED', content: { orderId: 'x', item: 'ghost', amount: -1 } }),
    ]);
    await app.close();
  });
});
