import { MessageContext } from '@mmmq/consumer';
import { MmmqContext } from '../src';

const delivery = {
  id: 'm-1',
  topic: 'order.created',
  content: {},
  headers: {},
  offset: 3,
  deliveryCount: 1,
  redelivered: false,
  publishedAt: 1000,
};

describe('MmmqContext', () => {
  it('shows the expiry and priority the broker sent', () => {
    const context = new MmmqContext([new MessageContext('shop', { ...delivery, expiresAt: 61_000, priority: 9 }), 'order.*']);
    expect([context.getExpiresAt(), context.getPriority()]).toEqual([61_000, 9]);
  });

  it('shows null and the default priority 4 for a message without them', () => {
    const context = new MmmqContext([new MessageContext('shop', delivery), 'order.*']);
    expect([context.getExpiresAt(), context.getPriority()]).toEqual([null, 4]);
  });
});
