import { Injectable, INestApplication } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { Gate } from '../support/gate';
import { startPullingConsumer } from '../support/pulling-consumer';
import { waitFor } from '../support/wait-for';

const seen: Array<{ n: number; member: string; deliveryCount: number; redelivered: boolean }> = [];
let gate: Gate | undefined;

@Injectable()
class StockListener {
  member = '';

  @MMMQListener({ pattern: 'stock.*', consumerId: 'billing.stock' })
  async onChange(content: { n: number }, context: MessageContext): Promise<void> {
    seen.push({ n: content.n, member: this.member, deliveryCount: context.deliveryCount, redelivered: context.redelivered });
    if (content.n === 1 && context.deliveryCount === 1) await gate?.promise;
  }
}

describe('a pull listener against the real broker', () => {
  let broker: BrokerApp;
  const apps: INestApplication[] = [];
  const start = async (member: string, options: Parameters<typeof startPullingConsumer>[2] = {}) => {
    const { app } = await startPullingConsumer(broker, [StockListener], { ...options, pull: { member, ...options.pull } });
    app.get(StockListener).member = member;
    apps.push(app);
    return app;
  };

  beforeEach(async () => {
    seen.length = 0;
    gate = undefined;
    broker = await startBroker();
  });
  afterEach(async () => {
    gate?.open();
    for (const app of apps.splice(0)) await app.close();
    await broker.close();
  });

  it('handles every message once, in order, with the same handler code as push, and settles the subscription', async () => {
    for (let n = 0; n < 20; n++) await broker.publish('stock.changed', { n });
    await start('billing:a:1', { pull: { prefetch: 8 } });
    await waitFor(() => seen.length === 20, 'all 20 messages');
    expect(seen.map(({ n }) => n)).toEqual([...Array(20).keys()]);
    await broker.caughtUp('billing.stock', 'stock.changed');
  });

  it('refuses a pushed delivery with 404 and never runs the handler: a pulling consumer takes only what it fetched', async () => {
    const app = await start('billing:a:1');
    await app.listen(0, '127.0.0.1');
    const url = await app.getUrl();
    const push = (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mmmq-consumer-id': 'billing.stock' },
        body: JSON.stringify(body),
      });
    const message = { id: 'forged-1', topic: 'stock.changed', content: { n: 7 }, headers: {}, offset: 0, deliveryCount: 1 };

    const single = await push('/mmmq/messages', message);
    const batch = await push('/mmmq/messages/batch', { messages: [message] });

    expect(single.status).toBe(404);
    expect(await single.json()).toMatchObject({ acknowledgement: 'NACK', message: expect.stringContaining("delivery: 'pull'") });
    expect(batch.status).toBe(404);
    expect(seen).toEqual([]);
  });

  it('shares the work between two members of one consumer id, each message settled once', async () => {
    await start('billing:a:1', { pull: { prefetch: 5 } });
    await start('billing:b:2', { pull: { prefetch: 5 } });
    for (let n = 0; n < 100; n++) await broker.publish('stock.changed', { n });
    await waitFor(() => new Set(seen.map(({ n }) => n)).size === 100, 'all 100 messages');
    await broker.caughtUp('billing.stock', 'stock.changed');
    expect(seen).toHaveLength(100);
    expect(new Set(seen.map(({ member }) => member))).toEqual(new Set(['billing:a:1', 'billing:b:2']));
  });

  it('auto: a message whose handler had not finished when the consumer stopped comes again, marked redelivered', async () => {
    gate = new Gate();
    const first = await start('billing:a:1', { shutdownTimeoutMs: 0 });
    await broker.publish('stock.changed', { n: 1 });
    await waitFor(() => seen.length === 1, 'the handler to start');
    await first.close(); // releases the unsettled lease (recover) instead of waiting for it to expire
    apps.splice(apps.indexOf(first), 1);
    await start('billing:a:2');
    await waitFor(() => seen.length === 2, 'the redelivery');
    expect(seen[1]).toMatchObject({ n: 1, deliveryCount: 2, redelivered: true });
    await broker.caughtUp('billing.stock', 'stock.changed');
  });

  it('manual: a message is settled only by ack(); nack() brings it back', async () => {
    @Injectable()
    class ManualListener {
      @MMMQListener({ pattern: 'stock.*', consumerId: 'billing.stock-manual', ackMode: 'manual' })
      async onChange(content: { n: number }, context: MessageContext): Promise<void> {
        seen.push({ n: content.n, member: 'manual', deliveryCount: context.deliveryCount, redelivered: context.redelivered });
        if (context.deliveryCount === 1) await context.nack();
        else await context.ack();
      }
    }
    const { app } = await startPullingConsumer(broker, [ManualListener], { pull: { member: 'billing:m:1' } });
    apps.push(app);
    await broker.publish('stock.changed', { n: 7 });
    await waitFor(() => seen.length === 2, 'the NACKed message to come back');
    expect(seen.map(({ deliveryCount, redelivered }) => [deliveryCount, redelivered])).toEqual([
      [1, false],
      [2, true],
    ]);
    await broker.caughtUp('billing.stock-manual', 'stock.changed');
  });

  it('none: the broker settles on fetch, so what the consumer had not handled when it stopped is lost', async () => {
    gate = new Gate();
    const first = await start('billing:a:1', { ackMode: 'none', shutdownTimeoutMs: 0, listeners: {} });
    for (const n of [1, 2, 3]) await broker.publish('stock.changed', { n });
    await waitFor(() => seen.length === 1, 'the first handler to start');
    await broker.caughtUp('billing.stock', 'stock.changed');
    await first.close();
    apps.splice(apps.indexOf(first), 1);
    gate.open();
    await start('billing:a:2', { ackMode: 'none' });
    await broker.publish('stock.changed', { n: 4 });
    await waitFor(() => seen.some(({ n }) => n === 4), 'the message published after the restart');
    expect(seen.map(({ n }) => n)).toEqual([1, 4]);
  });
});
