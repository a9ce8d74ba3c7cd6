import { Injectable, INestApplication } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { startPullingConsumer } from '../support/pulling-consumer';
import { waitFor } from '../support/wait-for';

const seen: Array<{ content: string; priority: number; ttl: number | null }> = [];

@Injectable()
class PropertiesListener {
  @MMMQListener({ pattern: 'props.*', consumerId: 'billing.props' })
  async onMessage(content: string, context: MessageContext): Promise<void> {
    seen.push({ content, priority: context.priority, ttl: context.expiresAt === null ? null : context.expiresAt - context.publishedAt! });
  }
}

describe('a listener learns the priority and expiry of its message', () => {
  let broker: BrokerApp;
  let app: INestApplication | undefined;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await app?.close();
    await broker.close();
  });

  it('from the context: expiresAt (null when it never expires) and priority (4 when not given)', async () => {
    const response = await broker.request('POST', '/mmmq/messages/batch', {
      messages: [
        { topic: 'props.changed', content: 'plain' },
        { topic: 'props.changed', content: 'urgent', priority: 8, ttlMs: 60_000 },
      ],
    });
    expect(response.status).toBe(200);
    ({ app } = await startPullingConsumer(broker, [PropertiesListener]));
    await waitFor(() => seen.length === 2, 'both messages');
    expect(seen.sort((a, b) => a.content.localeCompare(b.content))).toEqual([
      { content: 'plain', priority: 4, ttl: null },
      { content: 'urgent', priority: 8, ttl: 60_000 },
    ]);
    await broker.caughtUp('billing.props', 'props.changed');
  });
});
