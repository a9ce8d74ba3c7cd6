import { setTimeout as delay } from 'node:timers/promises';
import { Injectable, INestApplication } from '@nestjs/common';
import { MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { startPullingConsumer } from '../support/pulling-consumer';
import { waitFor } from '../support/wait-for';

const TOPIC = 'job.run';
const CONSUMER_ID = 'work.jobs';
const MESSAGES = 3000;
/** Every handler waits this long: the members' speed is their handlers', not the machine's CPU. */
const HANDLER_MS = 10;

@Injectable()
class Jobs {
  handled = 0;

  @MMMQListener(TOPIC, { consumerId: CONSUMER_ID })
  async onJob(): Promise<void> {
    await delay(HANDLER_MS);
    this.handled++;
  }
}

describe('two push hosts and a pull member of one consumer id share a backlog', () => {
  let broker: BrokerApp;
  const pushHosts: ConsumerApp[] = [];
  let puller: INestApplication | undefined;

  beforeEach(async () => {
    broker = await startBroker({ http: { maxBatchMessages: MESSAGES } });
  });
  afterEach(async () => {
    await puller?.close();
    for (const host of pushHosts.splice(0)) await host.close();
    await broker.close();
  });

  const hosts = async (): Promise<number> => {
    const { status, body } = await broker.request('GET', `/mmmq/dispatchers/${CONSUMER_ID}`);
    return status !== 200 ? 0 : (body.hosts ?? (body.host === undefined ? [] : [body.host])).length;
  };
  const startPushHost = async () => {
    const port = await freePort();
    const app = await startConsumer(
      {
        imports: [MmmqConsumerModule.forRoot({ app: 'work', broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}` })],
        providers: [Jobs],
      },
      { port },
    );
    pushHosts.push(app);
    await waitFor(async () => (await hosts()) === pushHosts.length, `push host ${pushHosts.length} registered`);
  };

  it('gives each member a share near an even split when they handle at the same speed', async () => {
    await startPushHost();
    await startPushHost();
    ({ app: puller } = await startPullingConsumer(broker, [Jobs], { app: 'work', pull: { member: 'puller' } }));
    const started = Date.now();
    const { status } = await broker.request('POST', '/mmmq/messages/batch', {
      messages: Array.from({ length: MESSAGES }, (_, n) => ({ topic: TOPIC, content: { n } })),
    });
    expect(status).toBe(200);
    const members = [...pushHosts.map((host) => host.app), puller];
    const shares = () => members.map((app) => app.get(Jobs).handled);
    await waitFor(() => shares().reduce((a, b) => a + b) >= MESSAGES, 'every message handled', 60_000);
    console.log(`shares ${shares().join(' / ')} in ${Date.now() - started} ms`);
    await broker.caughtUp(CONSUMER_ID, TOPIC);
  }, 120_000);
});
