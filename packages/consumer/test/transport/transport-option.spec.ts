import { MmmqTransport, TopicPattern } from '@mmmq/core';
import { InMemoryTransport } from '@mmmq/core/testing';
import { InvalidConsumerOptionsError, MmmqConsumerOptions } from '../../src';
import { ConsumerRuntime } from '../../src/internal';
import { resolveConsumerOptions } from '../../src/runtime/mmmq-consumer-options.resolver';
import { MmmqConsumerModule } from '../../src/mmmq-consumer.module';
import { initConsumer } from '../support/consumer-context';

/** A valid value of each option that only concerns the MMMQ broker. */
const BROKER_ONLY: [keyof MmmqConsumerOptions, unknown][] = [
  ['broker', 'http://127.0.0.1:8080'],
  ['advertisedUrl', 'http://127.0.0.1:3000'],
  ['token', 'secret'],
  ['tls', { ca: ['pem'] }],
  ['autoRegister', false],
  ['delivery', 'pull'],
  ['pull', { prefetch: 10 }],
  ['registration', { failFast: true }],
  ['signingSecrets', ['whsec_x']],
  ['signatureToleranceSeconds', 30],
  ['deliveryBatchSize', 10],
  ['deliveryMaxInFlight', 1],
  ['maxBodyBytes', 1024],
];

describe('the consumer transport option', () => {
  it('is resolved as given, with the options every transport shares', () => {
    const transport = new InMemoryTransport();
    const resolved = resolveConsumerOptions({ app: 'billing', transport, queueSize: 5, ackMode: 'manual', shutdownTimeoutMs: 100 });
    expect(resolved).toMatchObject({ transport, queueSize: 5, ackMode: 'manual', shutdownTimeoutMs: 100 });
    expect(resolved.registrations).toEqual({ push: undefined, pull: undefined });
    expect(resolveConsumerOptions({}).transport).toBeUndefined();
  });

  it.each(BROKER_ONLY)('refuses %s beside a transport, naming it', (name, value) => {
    const options = { transport: new InMemoryTransport(), [name]: value } as MmmqConsumerOptions;
    expect(() => resolveConsumerOptions(options)).toThrow(InvalidConsumerOptionsError);
    expect(() => resolveConsumerOptions(options)).toThrow(
      `${name} is an option of the MMMQ broker, but transport is set (in-memory); remove it`,
    );
  });

  it('names every broker option given beside a transport at once', () => {
    const options = { transport: new InMemoryTransport(), broker: 'http://b:1', advertisedUrl: 'http://a:2', delivery: 'push' as const };
    expect(() => resolveConsumerOptions(options)).toThrow(
      'broker, advertisedUrl, delivery are options of the MMMQ broker, but transport is set (in-memory); remove them',
    );
  });

  it('refuses a transport that is not an MmmqTransport, naming the option', () => {
    const lookalike = { name: 'rabbitmq', createSubscriber: () => undefined, unsupported: () => [] };
    expect(() => resolveConsumerOptions({ transport: lookalike as unknown as MmmqTransport })).toThrow(
      /^transport must be an MmmqTransport, such as new RabbitMqTransport\(\{ url \}\) of @mmmq\/rabbitmq, got \{"name":"rabbitmq"\}/,
    );
  });

  it('fails bootstrap from forRootAsync too', async () => {
    const failure = initConsumer({
      imports: [MmmqConsumerModule.forRootAsync({ useFactory: () => ({ transport: new InMemoryTransport(), token: 't' }) })],
    });
    await expect(failure).rejects.toThrow('token is an option of the MMMQ broker');
  });

  it('is taken by the ConsumerRuntime of @mmmq/microservices, which subscribes its listeners there', async () => {
    const transport = new InMemoryTransport();
    const runtime = new ConsumerRuntime({ transport });
    const handled: unknown[] = [];
    const listener = {
      name: 'orders',
      where: '@EventPattern("order.*")',
      consumerId: 'shop.orders',
      pattern: TopicPattern.of('order.*'),
      concurrency: 1,
      startFrom: undefined,
      ackMode: 'auto' as const,
      contentType: { kind: 'any' as const },
      handle: (content: unknown) => void handled.push(content),
    };

    await runtime.start([listener]);
    transport.broker.publish({ topic: 'order.placed', content: { n: 1 } });
    await transport.broker.drain();
    await runtime.close();

    expect(handled).toEqual([{ n: 1 }]);
    expect(runtime.status.snapshot()).toMatchObject({ registered: ['shop.orders'], pending: [] });
  });
});
