import { Injectable } from '@nestjs/common';
import { Registry } from 'prom-client';
import { MmmqConsumerModule, MMMQListener, NonRetriableError } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { Gate } from '../support/gate';
import { httpGet, promSample } from '../support/http-get';
import { waitFor } from '../support/wait-for';

const CONSUMER_ID = 'billing.refund-listener';
const TOPIC = 'refund.requested';

interface Refund {
  refundId: string;
  bad?: boolean;
  hold?: boolean;
}

/** ACKs a refund, refuses (dead-letters) one marked `bad`, and holds one marked `hold` until the gate opens. */
@Injectable()
@MMMQListener(TOPIC)
class RefundListener implements MMMQListener<Refund> {
  readonly gate = new Gate();
  held = 0;

  async handle(content: Refund): Promise<NonRetriableError | void> {
    if (content.hold) {
      this.held += 1;
      await this.gate.promise;
    }
    if (content.bad) return new NonRetriableError(`refund ${content.refundId} is unknown`);
  }
}

/** The status of `GET url`, polled until it is `status`. */
async function untilStatus(url: string, status: number, what: string): Promise<string> {
  let text = '';
  await waitFor(async () => {
    const response = await httpGet(url);
    text = response.text;
    return response.status === status;
  }, `${what} (last body ${text})`);
  return text;
}

describe('MmmqConsumerModule health and metrics options, against a real broker', () => {
  let broker: BrokerApp | undefined;
  let consumer: ConsumerApp | undefined;

  afterEach(async () => {
    await consumer?.close();
    await broker?.close();
    consumer = broker = undefined;
  });

  async function start(brokerPort: number, extras: Parameters<typeof MmmqConsumerModule.forRoot>[0]): Promise<ConsumerApp> {
    const port = await freePort();
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: `http://127.0.0.1:${brokerPort}`,
      advertisedUrl: `http://127.0.0.1:${port}`,
      registration: { backoffMs: 50 },
      ...extras,
    });
    return startConsumer({ imports: [module], providers: [RefundListener] }, { port });
  }

  it('GET /health/ready is 503 until the listener is registered, then 200; /health/live is 200 throughout', async () => {
    const brokerPort = await freePort();
    consumer = await start(brokerPort, { health: true });

    const before = await httpGet(`${consumer.url}/health/ready`);
    expect(before.status).toBe(503);
    const down = JSON.parse(before.text);
    expect(down.status).toBe('error');
    expect(down.error['mmmq-consumer']).toMatchObject({ status: 'down', registered: [], pending: [{ consumerId: CONSUMER_ID }] });
    expect((await httpGet(`${consumer.url}/health/live`)).status).toBe(200);

    broker = await startBroker({ port: brokerPort });
    const up = JSON.parse(await untilStatus(`${consumer.url}/health/ready`, 200, 'readiness once registered'));
    expect(up).toMatchObject({ status: 'ok', info: { 'mmmq-consumer': { status: 'up', registered: [CONSUMER_ID], pending: [] } } });
    expect(JSON.parse((await httpGet(`${consumer.url}/health/live`)).text)).toMatchObject({
      status: 'ok',
      info: { process: { status: 'up' } },
    });
  });

  it('GET /health/ready is 503 while a handler is stuck past health.maxHandlerMs, 200 again once it returns', async () => {
    broker = await startBroker();
    consumer = await start(Number(new URL(broker.url).port), { health: { maxHandlerMs: 200 } });
    await untilStatus(`${consumer.url}/health/ready`, 200, 'readiness once registered');

    await broker.publish(TOPIC, { refundId: 'h', hold: true });
    const listener = consumer.app.get(RefundListener);
    await waitFor(() => listener.held === 1, 'the held handler to start');
    const stuck = JSON.parse(await untilStatus(`${consumer.url}/health/ready`, 503, 'readiness down while the handler hangs'));
    expect(stuck.error['mmmq-consumer'].message).toMatch(/^a handler has run for \d+ ms \(maxHandlerMs 200\)$/);

    listener.gate.open();
    await untilStatus(`${consumer.url}/health/ready`, 200, 'readiness once the handler returned');
  });

  it('GET /metrics serves the handler duration histogram and the runs by outcome in the Prometheus text format', async () => {
    broker = await startBroker();
    const registry = new Registry();
    consumer = await start(Number(new URL(broker.url).port), { health: true, metrics: { registry } });
    await untilStatus(`${consumer.url}/health/ready`, 200, 'readiness once registered');
    for (const refund of [{ refundId: 'a' }, { refundId: 'b', bad: true }, { refundId: 'c' }]) await broker.publish(TOPIC, refund);
    await broker.caughtUp(CONSUMER_ID, TOPIC);

    const scrape = await httpGet(`${consumer.url}/metrics`);
    expect(scrape.status).toBe(200);
    // Express orders the parameters its own way.
    expect(scrape.contentType).toMatch(/^text\/plain;/);
    expect(scrape.contentType).toContain('version=0.0.4');
    const labels = { consumer_id: CONSUMER_ID, topic: TOPIC };
    const count = 'mmmq_consumer_handler_duration_seconds_count';
    expect(promSample(scrape.text, count, { ...labels, outcome: 'ack' })).toBe(2);
    expect(promSample(scrape.text, count, { ...labels, outcome: 'reject' })).toBe(1);
    expect(promSample(scrape.text, count, { ...labels, outcome: 'nack' })).toBeUndefined();
    expect(promSample(scrape.text, 'mmmq_consumer_handler_duration_seconds_bucket', { ...labels, outcome: 'ack', le: '+Inf' })).toBe(2);
    expect(promSample(scrape.text, 'mmmq_consumer_handler_duration_seconds_sum', { ...labels, outcome: 'ack' })).toBeGreaterThanOrEqual(0);
    expect(promSample(scrape.text, 'mmmq_consumer_queue_waiting_messages')).toBe(0);
    expect(promSample(scrape.text, 'mmmq_consumer_handlers_running')).toBe(0);
  });

  it("metrics: true serves prom-client's global registry, with the application's own metrics beside the consumer's", async () => {
    const { Counter, register } = await import('prom-client');
    new Counter({ name: 'billing_refunds_total', help: 'an application metric' }).inc(3);
    broker = await startBroker();
    consumer = await start(Number(new URL(broker.url).port), { metrics: true });
    const scrape = await httpGet(`${consumer.url}/metrics`);
    expect(scrape.status).toBe(200);
    expect(promSample(scrape.text, 'billing_refunds_total')).toBe(3);
    expect(promSample(scrape.text, 'mmmq_consumer_handlers_running')).toBe(0);
    expect((await httpGet(`${consumer.url}/health/ready`)).status).toBe(404);
    await consumer.close();
    consumer = undefined;
    // Closed, the consumer's names are free again for an application started anew in this process.
    expect(register.getSingleMetric('mmmq_consumer_handler_duration_seconds')).toBeUndefined();
    expect(register.getSingleMetric('billing_refunds_total')).toBeDefined();
  });

  it('serves neither route when the options are left out', async () => {
    broker = await startBroker();
    consumer = await start(Number(new URL(broker.url).port), {});
    expect((await httpGet(`${consumer.url}/health/ready`)).status).toBe(404);
    expect((await httpGet(`${consumer.url}/metrics`)).status).toBe(404);
  });
});
