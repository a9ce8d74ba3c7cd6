import { MmmqTransport, TransportPublisher, TransportSubscriber } from '@mmmq/core';
import { InMemoryTransport } from '@mmmq/core/testing';
import { InvalidConsumerOptionsError, MmmqConsumerOptions } from '../../src';
import { ConsumerRuntime } from '../../src/internal';
import { resolveConsumerOptions } from '../../src/mmmq-consumer-options.resolver';
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
    expect(resolved).toMatchObject({ transport, queueSize: 5, ackMode: 'manual', shutdownTimeoutMs: 100, registration: undefined });
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

  it('is refused by the ConsumerRuntime of @mmmq/microservices, which receives from the MMMQ broker only', () => {
    class OtherTransport extends MmmqTransport {
      readonly name = 'other';
      createPublisher(): TransportPublisher {
        throw new Error('unused');
      }
      createSubscriber(): TransportSubscriber {
        throw new Error('unused');
      }
      unsupported(): string[] {
        return [];
      }
    }
    expect(() => new ConsumerRuntime({ transport: new OtherTransport() })).toThrow(
      /^transport is not supported here: this runtime \(@mmmq\/microservices' MmmqServer\) receives from the MMMQ broker only/,
    );
  });
});
