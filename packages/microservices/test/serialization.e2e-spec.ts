import { Controller, INestMicroservice } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { BrokerApp, freePort, startBroker, waitFor } from '@mmmq/test-support';
import { MmmqServerOptions } from '../src';
import { startMicroservice } from './support/microservice-app';

const received: unknown[] = [];

@Controller()
class EnvelopeController {
  @EventPattern('envelope.*')
  handle(@Payload() payload: unknown): void {
    received.push(payload);
  }
}

async function boot(broker: BrokerApp, extra: Partial<MmmqServerOptions>): Promise<INestMicroservice> {
  const port = await freePort();
  const options = { app: 'codec', broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}`, host: '127.0.0.1', ...extra };
  return (await startMicroservice([EnvelopeController], options, () => undefined)).app;
}

describe('MmmqServer and Nest’s deserializer hook', () => {
  let broker: BrokerApp;
  let microservice: INestMicroservice | undefined;

  beforeEach(async () => {
    received.length = 0;
    broker = await startBroker();
  });
  afterEach(async () => {
    await microservice?.close();
    await broker?.close();
  });

  it('hands the handler the content exactly as published by default, even content shaped like a Nest packet', async () => {
    microservice = await boot(broker, {});
    const contents = [{ pattern: 'not.a.route', data: { nested: [1, 2.5, 'three'] }, id: 'x' }, 'plain text', 0, [null, true]];
    for (const content of contents) await broker.publish('envelope.raw', content);
    await waitFor(() => received.length === contents.length, { message: 'all four contents handled' });
    expect(received).toEqual(contents);
  });

  it('runs a custom deserializer on the content, with the topic as the channel, and hands on its packet’s data', async () => {
    const calls: Array<{ value: unknown; channel: unknown }> = [];
    const deserializer = {
      deserialize(value: unknown, options?: Record<string, unknown>) {
        calls.push({ value, channel: options?.channel });
        return { pattern: options?.channel, data: { unwrapped: (value as { body: unknown }).body } };
      },
    };
    microservice = await boot(broker, { deserializer });
    await broker.publish('envelope.wrapped', { body: 'hello' });
    await waitFor(() => received.length === 1, { message: 'the wrapped content handled' });
    expect(received).toEqual([{ unwrapped: 'hello' }]);
    expect(calls).toEqual([{ value: { body: 'hello' }, channel: 'envelope.wrapped' }]);
  });
});
