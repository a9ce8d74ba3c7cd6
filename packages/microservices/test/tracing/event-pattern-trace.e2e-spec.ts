import { Controller, INestMicroservice } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { BrokerApp, freePort, InMemoryTracing, startBroker, startInMemoryTracing } from '@mmmq/test-support';
import { SpanKind, trace } from '@opentelemetry/api';
import { lastValueFrom } from 'rxjs';
import { MmmqContext, MmmqServerOptions } from '../../src';
import { ClientApp, startClientApp } from '../support/client-app';
import { startMicroservice } from '../support/microservice-app';

const handled: Array<{ id: string; spanId: string | undefined; traceparent: unknown }> = [];

@Controller()
class ShippingController {
  @EventPattern('parcel.*')
  ship(@Payload() parcel: { id: string }, @Ctx() context: MmmqContext): void {
    handled.push({ id: parcel.id, spanId: trace.getActiveSpan()?.spanContext().spanId, traceparent: context.getHeaders().traceparent });
  }
}

describe('@EventPattern handlers traced from ClientProxy.emit() through the broker', () => {
  let tracing: InMemoryTracing;
  let broker: BrokerApp;
  let client: ClientApp;
  let microservice: INestMicroservice | undefined;

  beforeAll(async () => {
    tracing = startInMemoryTracing();
    broker = await startBroker();
    client = await startClientApp({ broker: broker.url });
  });
  afterAll(async () => {
    await client?.close();
    await broker?.close();
    await tracing.close();
  });
  afterEach(async () => {
    await microservice?.close();
    microservice = undefined;
    handled.length = 0;
    tracing.reset();
  });

  const emitFromRequest = (id: string) =>
    trace.getTracer('test').startActiveSpan('POST /parcels', async (span) => {
      try {
        await lastValueFrom(client.client.emit('parcel.sent', { id }));
      } finally {
        span.end();
      }
    });

  async function expectOneTrace(id: string): Promise<void> {
    const [process] = await tracing.waitForSpans('process parcel.sent');
    const spans = tracing.spans();
    const request = spans.find((span) => span.name === 'POST /parcels')!;
    const sends = spans.filter((span) => span.name === 'send parcel.sent');
    expect(sends).toHaveLength(1);
    expect(tracing.spans().filter((span) => span.name === 'process parcel.sent')).toHaveLength(1);
    const [send] = sends;
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(send.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(process.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(process.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
    expect(process.links.map((link) => link.context.spanId)).toEqual([send.spanContext().spanId]);
    expect(process.attributes).toMatchObject({ 'messaging.consumer.group.name': 'shipping.parcel.any', 'messaging.mmmq.outcome': 'ack' });
    const entry = handled.find((seen) => seen.id === id)!;
    expect(entry.spanId).toBe(process.spanContext().spanId);
    expect(entry.traceparent).toBe(`00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`);
  }

  it('pushed: one send span and one process span in one trace', async () => {
    const port = await freePort();
    const options: MmmqServerOptions = {
      app: 'shipping',
      broker: broker.url,
      advertisedUrl: `http://127.0.0.1:${port}`,
      host: '127.0.0.1',
      port,
    };
    ({ app: microservice } = await startMicroservice([ShippingController], options));
    await emitFromRequest('p-push');
    await expectOneTrace('p-push');
  });

  it('pulled: one send span and one process span in one trace', async () => {
    ({ app: microservice } = await startMicroservice([ShippingController], { app: 'shipping', broker: broker.url, delivery: 'pull' }));
    await emitFromRequest('p-pull');
    await expectOneTrace('p-pull');
  });
});
