import { Logger } from '@nestjs/common';
import { TopicPattern } from '@mmmq/core';
import type { AckMode } from '../../src/listener/ack-mode';
import { DeliveryHandler } from '../../src/handling/delivery-handler';
import { FrontHandler } from '../../src/handling/front-handler';
import { ListenerInvoker } from '../../src/handling/listener-invoker';
import type { ListenerDefinition } from '../../src/listener/listener-definition';
import { PullClient } from '../../src/pull/pull-client';
import { DEFAULT_PULL_MAX_LEASE_EXTENSION_MS } from '../../src/config/mmmq-consumer.options';
import { PullLoop } from '../../src/pull/pull-loop';
import { toTransportListener } from '../../src/transport/transport-listener';
import { FakePullBroker } from '../support/fake-pull-broker';
import { Gate } from '../support/gate';
import { waitFor } from '../support/wait-for';

const CONSUMER_ID = 'billing.crash';
const MEMBER = 'billing:crash:1';

/**
 * A consumer "crash": the loop stops fetching and is then abandoned — no drain, no ack flush, no recover. The
 * broker's lease expiry is played by `recover` on the stand-in, which hands back every unsettled message.
 */
describe('what a consumer crash redelivers, by ack mode (stand-in broker)', () => {
  let broker: FakePullBroker;
  let client: PullClient;
  const handled: string[] = [];
  let stuckAt: string | undefined;
  let stuck: Promise<void> = Promise.resolve();
  let frontHandler: FrontHandler;
  const silent = { log: () => undefined, warn: () => undefined } as unknown as Logger;

  function loop(ackMode: AckMode): PullLoop {
    const listener: ListenerDefinition = {
      name: 'crash',
      where: 'Crash.onMessage',
      consumerId: CONSUMER_ID,
      pattern: new TopicPattern('**'),
      concurrency: 1,
      startFrom: undefined,
      ackMode,
      contentType: { kind: 'any' },
      handle: async (_content, context) => {
        const { id } = context as { id: string };
        handled.push(id);
        if (id === stuckAt) await stuck;
      },
    };
    const settings = {
      prefetch: 100,
      waitMs: 50,
      member: MEMBER,
      ackTimeoutMs: undefined,
      maxLeaseExtensionMs: DEFAULT_PULL_MAX_LEASE_EXTENSION_MS,
    };
    const deliveries = new DeliveryHandler(frontHandler, new ListenerInvoker());
    return new PullLoop(toTransportListener(listener), {
      client,
      // The consumer's handler, as TransportConsumer gives it: the prefetch bounds, so a message waits for a worker.
      handle: (delivery) => deliveries.handle(listener, delivery, 'wait', {}),
      settings,
      logger: silent,
    });
  }

  async function crashAfterHandling(ackMode: AckMode, count: number): Promise<{ redelivered: number }> {
    broker.publish(
      CONSUMER_ID,
      't',
      Array.from({ length: count }, (_, n) => ({ n })),
    );
    const pulling = loop(ackMode);
    pulling.start();
    await waitFor(() => handled.length === count, `all ${count} messages to be handled`);
    await pulling.stop(); // crash: nothing after this runs
    const released = await client.recover(CONSUMER_ID, MEMBER); // as lease expiry would
    return { redelivered: released };
  }

  beforeEach(async () => {
    handled.length = 0;
    stuckAt = undefined;
    frontHandler = new FrontHandler({ queueSize: 1000, maxWorkers: 5 });
    broker = await new FakePullBroker().start();
    client = new PullClient(broker.url, 2_000);
  });
  afterEach(async () => {
    client.close();
    await broker.close();
  });

  it('auto: what had not been handled comes again (the running one too), nothing handled and acknowledged does', async () => {
    const gate = new Gate();
    stuckAt = 't-24';
    stuck = gate.promise;
    broker.publish(
      CONSUMER_ID,
      't',
      Array.from({ length: 50 }, (_, n) => ({ n })),
    );
    const pulling = loop('auto');
    pulling.start();
    await waitFor(() => handled.includes('t-24'), 'the handler of t-24 to start');
    await waitFor(() => broker.unsettled(CONSUMER_ID) === 26, 'the acks of the 24 handled before it');
    await pulling.stop(); // crash
    expect(await client.recover(CONSUMER_ID, MEMBER)).toBe(26);
    await frontHandler.close(0); // the crashed process runs nothing more
    gate.open();
  });

  it('dupsOk: handled messages whose lazy ack had not gone out yet come again (duplicates)', async () => {
    const { redelivered } = await crashAfterHandling('dupsOk', 50);
    const ackedBeforeCrash = broker.callsTo('ack').flatMap(({ body }) => body.leases).length;
    expect(redelivered).toBe(50 - ackedBeforeCrash);
    expect(redelivered).toBeGreaterThan(0);
  });

  it('none: the broker settled everything when it sent it, so nothing can come again', async () => {
    expect(await crashAfterHandling('none', 50)).toEqual({ redelivered: 0 });
    expect(broker.unsettled(CONSUMER_ID)).toBe(0);
  });
});
