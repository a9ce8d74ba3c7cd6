import { Injectable, INestApplication } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { startPullingConsumer } from '../support/pulling-consumer';
import { waitFor } from '../support/wait-for';

const CONSUMER_ID = 'billing.replays';
const handled: Array<{ n: number; redelivered: boolean }> = [];

@Injectable()
class ReplayedListener {
  @MMMQListener({ pattern: 'replay.*', consumerId: CONSUMER_ID, ackMode: 'manual' })
  async onMessage(content: { n: number }, context: MessageContext): Promise<void> {
    handled.push({ n: content.n, redelivered: context.redelivered });
    await context.ack();
  }
}

@Injectable()
class LateListener {
  @MMMQListener({ pattern: 'replay.*', consumerId: 'billing.late', startFrom: { time: '2999-01-01T00:00:00Z' } })
  onMessage(content: { n: number }): void {
    handled.push({ n: 1000 + content.n, redelivered: false });
  }
}

/** Through the Nest libraries: a listener of the consumer library replays what a seek hands back. */
describe('a listener after a seek of its consumer id', () => {
  let broker: BrokerApp;
  let app: INestApplication | undefined;

  beforeEach(async () => {
    handled.length = 0;
    broker = await startBroker();
  });
  afterEach(async () => {
    await app?.close();
    await broker.close();
  });

  it('handles again, marked redelivered, exactly the messages from the offset it was moved to', async () => {
    await broker.publishAll(
      'replay.events',
      [0, 1, 2, 3, 4].map((n) => ({ n })),
    );
    ({ app } = await startPullingConsumer(broker, [ReplayedListener]));
    await waitFor(() => handled.length === 5, 'the five messages to be handled');
    await broker.caughtUp(CONSUMER_ID, 'replay.events');

    const seek = await broker.request('POST', `/mmmq/consumers/${CONSUMER_ID}/seek`, { to: { offset: 2 } });
    expect(seek).toMatchObject({ status: 200, body: { redeliver: 3, skip: 0 } });
    await waitFor(() => handled.length === 8, 'the three messages from offset 2 to be handled again');
    expect(handled.slice(5)).toEqual([
      { n: 2, redelivered: true },
      { n: 3, redelivered: true },
      { n: 4, redelivered: true },
    ]);
    await broker.caughtUp(CONSUMER_ID, 'replay.events');
  });

  it('registers startFrom {time} with its dispatcher: a time after every message starts at the tail', async () => {
    await broker.publishAll(
      'replay.events',
      [0, 1].map((n) => ({ n })),
    );
    ({ app } = await startPullingConsumer(broker, [LateListener]));
    expect((await broker.request('GET', '/mmmq/dispatchers/billing.late')).body).toMatchObject({
      startFrom: { time: '2999-01-01T00:00:00Z' },
    });
    await broker.publish('replay.events', { n: 2 });
    await waitFor(() => handled.length === 1, 'the message published after it registered');
    expect(handled).toEqual([{ n: 1002, redelivered: false }]);
  });
});
