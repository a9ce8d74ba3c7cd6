import { waitFor } from '@mmmq/test-support';
import { InvalidProducerOptionsError, Producer, ProducerClosedError, RequestReplyUnavailableError } from '@mmmq/producer';
import { ClientsModule } from '@nestjs/microservices';
import { lastValueFrom, Observable } from 'rxjs';
import { MmmqClient } from '../src/client/mmmq-client';
import type { MmmqClientOptions } from '../src/client/mmmq-client.options';
import { ClientEventsNotSupportedError } from '../src/errors/client-events-not-supported.error';
import { UnsupportedPatternError } from '../src/errors/unsupported-pattern.error';
import { MMMQ_CLIENT, startAsyncClientApp } from './support/client-app';

// A reserved name that never resolves (RFC 2606): these tests connect to nothing and publish nothing.
const BROKER = 'http://mmmq.invalid';

describe('MmmqClient options and lifecycle', () => {
  it.each<[string, unknown, RegExp]>([
    ['an unknown option', { broker: BROKER, retries: 3 }, /Unknown producer option "retries"/],
    ['a broker that is not a URL', { broker: 'x' }, /^broker must be a URL/],
    ['no broker', {}, /^broker is required/],
    ['a negative maxRetryCount', { broker: BROKER, maxRetryCount: -1 }, /maxRetryCount/],
    [
      'a serializer without serialize()',
      { broker: BROKER, serializer: 42 },
      /^serializer must be an object with a serialize\(value\) method, got 42/,
    ],
    ['options that are not an object', undefined, /must be an object/],
  ])('refuses %s at construction, naming it', (_, options, message) => {
    expect(() => new MmmqClient(options as MmmqClientOptions)).toThrow(InvalidProducerOptionsError);
    expect(() => new MmmqClient(options as MmmqClientOptions)).toThrow(message);
  });

  it('refuses invalid options when ClientsModule.register builds the client', () => {
    const options = { broker: 'x', retries: 3 };
    expect(() => ClientsModule.register([{ name: MMMQ_CLIENT, customClass: MmmqClient, options }])).toThrow(/"retries"/);
  });

  it('refuses invalid options when ClientsModule.registerAsync builds the client', async () => {
    await expect(startAsyncClientApp(() => ({ broker: BROKER, timeoutMs: 0 }))).rejects.toThrow(/^timeoutMs/);
  });

  it('accepts a serializer without passing it to the producer', () => {
    const client = new MmmqClient({ broker: BROKER, serializer: { serialize: (value) => value } });
    expect(client.unwrap()).toBeInstanceOf(Producer);
  });

  it('connects without opening anything', async () => {
    await expect(new MmmqClient({ broker: BROKER }).connect()).resolves.toBeUndefined();
  });

  it('closes idempotently; an emit after close errors with ProducerClosedError', async () => {
    const client = new MmmqClient({ broker: BROKER });
    await Promise.all([client.close(), client.close()]);
    await expect(client.close()).resolves.toBeUndefined();
    await expect(lastValueFrom(client.emit('order.created', { orderId: 1 }))).rejects.toBeInstanceOf(ProducerClosedError);
  });

  it('is closed when the application shuts down', async () => {
    const app = await startAsyncClientApp(() => ({ broker: BROKER }));
    await app.close();
    await expect(lastValueFrom(app.client.emit('order.created', { orderId: 1 }))).rejects.toBeInstanceOf(ProducerClosedError);
  });

  it('refuses on() with a clear error', () => {
    expect(() => new MmmqClient({ broker: BROKER }).on('error', () => undefined)).toThrow(ClientEventsNotSupportedError);
  });

  it('reports a request that cannot be sent through publish(), with a no-op teardown', async () => {
    class Exposed extends MmmqClient {
      publishNow(callback: (packet: { err?: unknown; isDisposed?: boolean }) => void): () => void {
        return this.publish({ pattern: { cmd: 'quote' }, data: {} }, callback);
      }
    }
    const packets: Array<{ err?: unknown; isDisposed?: boolean }> = [];
    const teardown = new Exposed({ broker: BROKER }).publishNow((packet) => packets.push(packet));
    expect(teardown()).toBeUndefined();
    await waitFor(() => packets.length === 1, { message: 'the packet reported' });
    expect(packets).toEqual([{ err: expect.any(UnsupportedPatternError), isDisposed: true }]);
  });

  it("errors send() with the producer's refusal, as an Observable: no reply can reach a publish-stream producer", async () => {
    const sent: Observable<unknown> = new MmmqClient({ broker: 'mmmq://127.0.0.1:1' }).send('order.quote', {});
    await expect(lastValueFrom(sent)).rejects.toBeInstanceOf(RequestReplyUnavailableError);
  });
});
