import { InMemoryTransport } from '@mmmq/core/testing';
import { resolveProducerOptions } from '../../src/mmmq-producer-options.resolver';
import { replyRouteOf } from '../../src/request/reply-route.provider';

describe('where replies come back, by where the producer publishes', () => {
  it('collects them from the broker over HTTP, with its token', () => {
    const options = resolveProducerOptions({ broker: 'http://127.0.0.1:8080', token: 'publisher-token-0123456789' }, false);
    expect(replyRouteOf(options)).toEqual({
      kind: 'http',
      broker: 'http://127.0.0.1:8080',
      access: { token: 'publisher-token-0123456789', tls: undefined },
    });
  });

  it('receives them in this process from its own broker and from the in-memory transport', () => {
    const inMemory = new InMemoryTransport();
    expect(replyRouteOf(resolveProducerOptions({ transport: inMemory }, false))).toEqual({ kind: 'local' });
    expect(replyRouteOf(resolveProducerOptions({}, 'in-memory'), inMemory)).toEqual({ kind: 'local' });
    expect(replyRouteOf(resolveProducerOptions({}, 'in-process'), undefined, {} as never)).toEqual({ kind: 'local' });
  });

  it('has none over the publish stream, naming the way out', () => {
    expect(replyRouteOf(resolveProducerOptions({ broker: 'mmmq://127.0.0.1:8081' }, false))).toEqual({
      kind: 'unavailable',
      reason: expect.stringMatching(/publish stream \(mmmq:\/\/127.0.0.1:8081\); use the broker's http:\/\/ URL/),
    });
  });
});
