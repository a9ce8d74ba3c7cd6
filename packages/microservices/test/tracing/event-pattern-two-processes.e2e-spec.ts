import { resolve } from 'node:path';
import {
  BrokerApp,
  freePort,
  InMemoryTracing,
  spawnApp,
  startBroker,
  startInMemoryTracing,
  waitFor,
  type AppProcess,
} from '@mmmq/test-support';
import { SpanKind, trace } from '@opentelemetry/api';
import { lastValueFrom } from 'rxjs';
import { ClientApp, startClientApp } from '../support/client-app';

const CHILD_MAIN = resolve(__dirname, 'fixtures/traced-microservice.main.ts');
const REPOSITORY_ROOT = resolve(__dirname, '../../../..');

interface ChildSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  links: string[];
  attributes: Record<string, unknown>;
}

/** The spans the child wrote to stdout, one `SPAN <json>` line each. */
function childSpans(child: AppProcess): ChildSpan[] {
  return child
    .output()
    .split('\n')
    .filter((line) => line.startsWith('SPAN '))
    .map((line) => JSON.parse(line.slice('SPAN '.length)) as ChildSpan);
}

describe('one trace across two processes: ClientProxy.emit() here, an @EventPattern handler in a child process', () => {
  let tracing: InMemoryTracing;
  let broker: BrokerApp;
  let client: ClientApp;
  let child: AppProcess | undefined;

  beforeAll(async () => {
    tracing = startInMemoryTracing();
    broker = await startBroker();
    client = await startClientApp({ broker: broker.url });
  });
  afterAll(async () => {
    if (child !== undefined && child.child.exitCode === null) {
      child.child.kill('SIGTERM');
      await child.exited;
    }
    await client?.close();
    await broker?.close();
    await tracing.close();
  });

  it('joins the handler’s process span, and the spans it makes, to the trace of the emitting request, through the headers alone', async () => {
    const port = await freePort();
    child = spawnApp(
      'The traced microservice',
      CHILD_MAIN,
      { BROKER_URL: broker.url, PORT: String(port), TS_NODE_PROJECT: resolve(REPOSITORY_ROOT, 'tsconfig.json') },
      { nodeArgs: ['-r', 'ts-node/register/transpile-only'] },
    );
    await child.waitFor(/^READY$/m, 'that it is ready');

    await trace.getTracer('test').startActiveSpan('POST /parcels', async (span) => {
      await lastValueFrom(client.client.emit('parcel.sent', { id: 'p-1' })).finally(() => span.end());
    });
    const [send] = await tracing.waitForSpans('send parcel.sent');
    const request = tracing.spans().find((span) => span.name === 'POST /parcels')!;
    await waitFor(() => childSpans(child!).some((span) => span.name === 'process parcel.sent'), {
      message: () => `the child's spans (output so far:\n${child!.output()})`,
    });

    const spans = childSpans(child);
    const process = spans.find((span) => span.name === 'process parcel.sent')!;
    const label = spans.find((span) => span.name === 'label p-1')!;
    expect(spans.filter((span) => span.name === 'process parcel.sent')).toHaveLength(1);
    expect(process.traceId).toBe(request.spanContext().traceId);
    expect(process.parentSpanId).toBe(send.spanContext().spanId);
    expect(process.links).toEqual([send.spanContext().spanId]);
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.attributes).toMatchObject({
      'messaging.system': 'mmmq',
      'messaging.destination.name': 'parcel.sent',
      'messaging.message.id': send.attributes['messaging.message.id'],
      'messaging.mmmq.outcome': 'ack',
    });
    expect(label).toMatchObject({ traceId: request.spanContext().traceId, parentSpanId: process.spanId });
  });
});
