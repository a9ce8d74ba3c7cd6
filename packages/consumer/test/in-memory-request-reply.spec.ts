import { MmmqTestingModule } from '@mmmq/core/testing';
import { MmmqProducerModule, Producer, ReplyError } from '@mmmq/producer';
import { INestApplication, Injectable } from '@nestjs/common';
import { MmmqConsumerModule, MMMQListener } from '../src';
import { initConsumer } from './support/consumer-context';

@Injectable()
class Pricing {
  @MMMQListener('pricing.quote', { consumerId: 'pricing.quote' })
  quote(request: { sku: string }): { sku: string; price: number } {
    if (request.sku === 'unknown') throw new Error(`no price for ${request.sku}`);
    return { sku: request.sku, price: 9.5 };
  }
}

/** Unit-testing a replier the way users test listeners: MmmqTestingModule's in-memory broker, no broker process. */
describe('request-reply with the in-memory broker', () => {
  let app: INestApplication;

  beforeEach(async () => {
    ({ app } = await initConsumer({
      imports: [MmmqTestingModule.forRoot(), MmmqConsumerModule.forRoot({ app: 'pricing' }), MmmqProducerModule.forRoot()],
      providers: [Pricing],
    }));
  });
  afterEach(() => app.close());

  it("resolves request() with the listener's result, and rejects it with the listener's error", async () => {
    const producer = app.get(Producer);
    await expect(producer.request('pricing.quote', { sku: 'A-42' })).resolves.toEqual({ sku: 'A-42', price: 9.5 });
    await expect(producer.request('pricing.quote', { sku: 'unknown' })).rejects.toThrow(ReplyError);
    expect(producer.replyStats()).toEqual({ pending: 0, answered: 2, late: 0 });
  });
});
