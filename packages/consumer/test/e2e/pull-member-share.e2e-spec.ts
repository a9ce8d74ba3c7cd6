import { setTimeout as delay } from 'node:timers/promises';
import { Injectable, INestApplication, Type } from '@nestjs/common';
import { MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { freePort, startConsumer } from '../support/consumer-app';
import { startPullingConsumer } from '../support/pulling-consumer';
import { waitFor } from '../support/wait-for';

const TOPIC = 'job.run';
const CONSUMER_ID = 'work.jobs';
const MESSAGES = 3000;
/** Every handler waits this long: the members' speed is their handlers', not the machine's CPU. */
const HANDLER_MS = 10;
/** Equal share: every member handles at least 70 % of an even split. */
const MIN_SHARE = Math.floor((0.7 * MESSAGES) / 3);

interface Counter {
  handled: number;
}

/** One listener class per case: the decorator's options are fixed when the class is defined. */
function jobsListener(limits: { maxActiveMembers?: number }): Type<Counter> {
  @Injectable()
  class Jobs implements Counter {
    handled = 0;

    @MMMQListener(TOPIC, { consumerId: CONSUMER_ID, ...limits })
    async onJob(): Promise<void> {
      await delay(HANDLER_MS);
      this.handled++;
    }
  }
  return Jobs;
}

describe.each([
  ['a plain shared consumer id', {}],
  ['maxActiveMembers: 3', { maxActiveMembers: 3 }],
])('two push hosts and a pull member of one consumer id share a backlog (%s)', (_, limits) => {
  const Jobs = jobsListener(limits);
  let broker: BrokerApp;
  const members: INestApplication[] = [];

  beforeEach(async () => {
    broker = await startBroker({ http: { maxBatchMessages: MESSAGES } });
  });
  afterEach(async () => {
    for (const app of members.splice(0)) await app.close();
    await broker.close();
  });

  const hosts = async (): Promise<number> => {
    const { status, body } = await broker.request('GET', `/mmmq/dispatchers/${CONSUMER_ID}`);
    return status !== 200 ? 0 : (body.hosts ?? (body.host === undefined ? [] : [body.host])).length;
  };
  const startPushHost = async (count: number) => {
    const port = await freePort();
    const advertisedUrl = `http://127.0.0.1:${port}`;
    const { app } = await startConsumer(
      { imports: [MmmqConsumerModule.forRoot({ app: 'work', broker: broker.url, advertisedUrl })], providers: [Jobs] },
      { port },
    );
    members.push(app);
    await waitFor(async () => (await hosts()) === count, `push host ${count} registered`);
  };

  it('gives each member at least 70 % of an even split when they handle at the same speed', async () => {
    await startPushHost(1);
    await startPushHost(2);
    const { app: puller } = await startPullingConsumer(broker, [Jobs], { app: 'work', pull: { member: 'puller' } });
    members.push(puller);
    // One batch: the whole backlog is there at once, before any member has taken a message.
    const { status } = await broker.request('POST', '/mmmq/messages/batch', {
      messages: Array.from({ length: MESSAGES }, (_, n) => ({ topic: TOPIC, content: { n } })),
    });
    expect(status).toBe(200);

    const shares = () => members.map((app) => app.get(Jobs).handled);
    await waitFor(() => shares().reduce((a, b) => a + b) >= MESSAGES, 'every message handled', 60_000);
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    const [first, second, pull] = shares();
    expect(first + second + pull).toBe(MESSAGES);
    const belowShare = Object.entries({ first, second, pull }).filter(([, handled]) => handled < MIN_SHARE);
    expect(belowShare).toEqual([]);
  }, 120_000);
});
