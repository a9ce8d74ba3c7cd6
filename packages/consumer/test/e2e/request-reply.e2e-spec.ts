import { join } from 'node:path';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type AppProcess, freePort, spawnApp } from '@mmmq/test-support';
import { type BrokerApp, startBroker } from '../support/broker-app';
import { calculatorState, requestReplyCases } from '../support/request-reply.cases';
import { waitFor } from '../support/wait-for';

const FIXTURE = join(__dirname, 'fixtures/calculator-process.cjs');

/**
 * The broker and the requester here, the replier in a process of its own: no reply can take a shortcut through this
 * process, so each goes through the broker's relay over HTTP, collected by the producer's long poll.
 */
describe.each(['push', 'pull'] as const)('request-reply across processes, the replier receiving by %s', (delivery) => {
  let broker: BrokerApp;
  let requester: INestApplicationContext;
  let replier: AppProcess | undefined;
  let port: number;

  const startReplier = async (env: Record<string, string> = {}) => {
    const started = spawnApp('The replier', FIXTURE, { BROKER: broker.url, DELIVERY: delivery, PORT: String(port), ...env });
    await started.waitFor(/READY/, 'READY');
    return started;
  };

  beforeEach(async () => {
    broker = await startBroker();
    port = await freePort();
    replier = await startReplier();
    @Module({ imports: [MmmqProducerModule.forRoot({ broker: broker.url })] })
    class RequesterModule {}
    requester = await NestFactory.createApplicationContext(RequesterModule, { logger: false });
  });
  afterEach(async () => {
    await requester?.close();
    replier?.child.kill('SIGKILL');
    await replier?.exited;
    replier = undefined;
    await broker?.close();
  });

  requestReplyCases({ producer: () => requester.get(Producer) });

  it('answers a request whose replier was killed mid-request: redelivered to the restarted replier', async () => {
    const producer = requester.get(Producer);
    const answer = producer.request('calc.slow', 42, { timeoutMs: 60_000 });
    await waitFor(async () => (await calculatorState(producer)).slowStarted === 1, 'the slow handler started');
    replier!.child.kill('SIGKILL');
    await replier!.exited;
    replier = await startReplier({ GATE_OPEN: '1' });
    await expect(answer).resolves.toBe(42);
    // At least once: a calc.state request the killed replier answered but had not acknowledged yet is delivered again
    // and answered a second time; that reply is dropped by its correlation id, and counted.
    expect(producer.replyStats()).toMatchObject({ pending: 0, late: expect.any(Number) });
    expect(producer.replyStats().late).toBeLessThanOrEqual(1);
  });
});
