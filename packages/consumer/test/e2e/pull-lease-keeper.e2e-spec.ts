import { Injectable, INestApplication } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { PullClient } from '../../src/pull/pull-client';
import { BrokerApp, startBroker } from '../support/broker-app';
import { CapturedLogger } from '../support/captured-logger';
import { Gate } from '../support/gate';
import { startPullingConsumer } from '../support/pulling-consumer';
import { waitFor } from '../support/wait-for';

const MESSAGES = 10;
/** The shortest lease a fetch may ask for: the prefetch outlasts it many times over while the first handler waits. */
const LEASE_MS = 1000;

const seen: Array<{ n: number; deliveryCount: number }> = [];
let gate = new Gate();

@Injectable()
class SlowListener {
  // One worker: the prefetched messages wait behind the first one, which waits for the gate.
  @MMMQListener({ pattern: 'slow.*', consumerId: 'slow.worker', concurrency: 1 })
  async onJob(content: { n: number }, context: MessageContext): Promise<void> {
    seen.push({ n: content.n, deliveryCount: context.deliveryCount });
    await gate.promise;
  }
}

describe('a pull listener keeps the leases of what it fetched alive while the messages wait for a worker', () => {
  let broker: BrokerApp;
  let app: INestApplication | undefined;
  let logs: CapturedLogger;

  beforeEach(async () => {
    seen.length = 0;
    gate = new Gate();
    broker = await startBroker();
  });
  afterEach(async () => {
    gate.open();
    jest.restoreAllMocks();
    await app?.close();
    await broker.close();
  });

  it('handles each prefetched message once, with deliveryCount 1, although the queue outlasts the lease several times', async () => {
    for (let n = 0; n < MESSAGES; n++) await broker.publish('slow.job', { n });
    const extend = jest.spyOn(PullClient.prototype, 'extend');
    ({ app, logs } = await startPullingConsumer(broker, [SlowListener], { pull: { prefetch: MESSAGES, ackTimeoutMs: LEASE_MS } }));
    await waitFor(() => seen.length === 1, 'the first message handled (and holding the only worker)');

    // Each extension renews every lease held a third of a lease: after four (over a lease), the first leases would have run out.
    await waitFor(() => extend.mock.calls.length >= 4, 'four lease extensions while the messages wait');
    gate.open();

    await waitFor(() => seen.length >= MESSAGES, `all ${MESSAGES} messages handled`);
    await broker.caughtUp('slow.worker', 'slow.job');
    expect(seen.map(({ n }) => n)).toEqual([...Array(MESSAGES).keys()]);
    expect(seen.every(({ deliveryCount }) => deliveryCount === 1)).toBe(true);
    expect(extend.mock.calls.every(([, leases, leaseMs]) => leases.length > 0 && leaseMs === LEASE_MS)).toBe(true);
    expect(logs.lines.filter((line) => line.includes('lease'))).toEqual([]);
  });
});
