import { Acknowledgement, DeliveryRequest } from '@mmmq/core';
import { INestApplication, Injectable } from '@nestjs/common';
import { MmmqConsumerModule, MMMQListener } from '../../src';
import { ListenerInvoker } from '../../src/handling/listener-invoker';
import { ListenerRegistry } from '../../src/listener/listener-registry';
import { CapturedLogger } from '../support/captured-logger';
import { initConsumer } from '../support/consumer-context';

@Injectable()
class Failing {
  @MMMQListener({ pattern: 'order.created', consumerId: 'billing.failing' })
  onCreated(): void {
    throw new Error('the ledger is down');
  }
}

const delivery = (fields: Partial<DeliveryRequest>): DeliveryRequest => ({
  id: 'm-1',
  topic: 'order.created',
  content: {},
  headers: {},
  offset: 0,
  deliveryCount: 4,
  redelivered: true,
  publishedAt: null,
  ...fields,
});

describe('the log line of a failed handler', () => {
  let app: INestApplication;
  let logs: CapturedLogger;

  beforeAll(async () => {
    ({ app, logs } = await initConsumer({ imports: [MmmqConsumerModule.forRoot({ app: 'billing' })], providers: [Failing] }));
  });
  afterAll(() => app.close());

  async function failOnce(fields: Partial<DeliveryRequest>): Promise<string> {
    logs.lines.length = 0;
    const listener = app.get(ListenerRegistry).find('billing.failing')!;
    const reply = await app.get(ListenerInvoker).invoke(listener, delivery(fields));
    expect(reply).toEqual({ acknowledgement: Acknowledgement.NACK, message: 'the ledger is down' });
    expect(logs.lines).toHaveLength(1);
    return logs.lines[0];
  }

  it('says the broker will retry the message when more attempts follow', async () => {
    expect(await failOnce({ lastAttempt: false })).toBe(
      'Failing.onCreated failed on message m-1 from order.created (attempt 4); the broker will retry it: the ledger is down',
    );
    expect(await failOnce({})).toContain('the broker will retry it');
  });

  it('says the broker dead-letters the message on its last attempt', async () => {
    const line = await failOnce({ lastAttempt: true });
    expect(line).toBe(
      'Failing.onCreated failed on message m-1 from order.created (attempt 4); this was the last attempt, so the ' +
        'broker dead-letters it: the ledger is down',
    );
    expect(line).not.toContain('retry');
  });
});
