import {
  DEFAULT_MAX_RETRY_COUNT,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_RETRY_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  InvalidProducerOptionsError,
} from '../src';
import { resolveProducerOptions } from '../src/mmmq-producer-options.resolver';
import { DEFAULT_BATCH_MAX_BYTES, DEFAULT_BATCH_MAX_MESSAGES, DEFAULT_STREAM_MAX_IN_FLIGHT } from '../src/publish-batcher';

describe('resolveProducerOptions', () => {
  it('applies the named defaults', () => {
    expect(resolveProducerOptions({ broker: 'http://localhost:8080' }, false)).toEqual({
      broker: 'http://localhost:8080',
      maxRetryCount: DEFAULT_MAX_RETRY_COUNT,
      retryDelayMs: DEFAULT_RETRY_DELAY_MS,
      maxRetryDelayMs: DEFAULT_MAX_RETRY_DELAY_MS,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      batching: { maxMessages: DEFAULT_BATCH_MAX_MESSAGES, maxBytes: DEFAULT_BATCH_MAX_BYTES, maxInFlight: 1 },
      token: undefined,
      events: new Map(),
    });
    expect(resolveProducerOptions({ broker: 'http://localhost:8080', batching: false }, false).batching).toBeUndefined();
    expect(() => resolveProducerOptions({ broker: 'http://h:1', batching: { maxMessages: 0 } }, false)).toThrow(/batching\.maxMessages/);
    expect([DEFAULT_MAX_RETRY_COUNT, DEFAULT_RETRY_DELAY_MS, DEFAULT_TIMEOUT_MS]).toEqual([3, 100, 10_000]);
  });

  it('keeps a token, and refuses one that cannot travel in a header without quoting it', () => {
    expect(resolveProducerOptions({ broker: 'http://b:1', token: 'secret-token-0123456789' }, false).token).toBe('secret-token-0123456789');
    for (const token of ['', 'secret token 0123456789', 'secret-token\n0123456789', 42]) {
      expect(() => resolveProducerOptions({ broker: 'http://b:1', token }, false)).toThrow(
        /^token must be a non-empty string of printable ASCII characters without spaces$/,
      );
    }
  });

  it('keeps a path prefix without its trailing slash, and accepts https and IPv6', () => {
    expect(resolveProducerOptions({ broker: 'https://gateway.example.com/mmmq-broker/' }, false).broker).toBe(
      'https://gateway.example.com/mmmq-broker',
    );
    expect(resolveProducerOptions({ broker: 'http://[::1]:8080' }, false).broker).toBe('http://[::1]:8080');
  });

  it('takes the publish stream as mmmq://host:port, with several batches in flight by default', () => {
    const resolved = resolveProducerOptions({ broker: 'mmmq://localhost:8081/' }, false);
    expect(resolved.broker).toBe('mmmq://localhost:8081');
    expect(resolved.batching?.maxInFlight).toBe(DEFAULT_STREAM_MAX_IN_FLIGHT);
    expect(resolveProducerOptions({ broker: 'mmmq://[::1]:1', batching: { maxInFlight: 1 } }, false)).toMatchObject({
      broker: 'mmmq://[::1]:1',
      batching: { maxInFlight: 1 },
    });
  });

  it('takes the publish stream over TLS as mmmqs://host:port, with the certificates to trust', () => {
    const resolved = resolveProducerOptions({ broker: 'mmmqs://broker.example:8081', tls: { ca: ['pem'] } }, false);
    expect(resolved).toMatchObject({ broker: 'mmmqs://broker.example:8081', tls: { ca: ['pem'] } });
    expect(resolved.batching?.maxInFlight).toBe(DEFAULT_STREAM_MAX_IN_FLIGHT);
  });

  it('needs no broker when an in-memory broker replaces it, and sends one batch of a topic at a time to it', () => {
    const resolved = resolveProducerOptions({}, 'in-memory');
    expect(resolved.broker).toBeUndefined();
    expect(resolved.batching?.maxInFlight).toBe(1);
  });

  it("keeps several batches of a topic in flight to the application's own broker, which commits them in call order", () => {
    const resolved = resolveProducerOptions({}, 'in-process');
    expect(resolved.broker).toBeUndefined();
    expect(resolved.batching?.maxInFlight).toBe(DEFAULT_STREAM_MAX_IN_FLIGHT);
    expect(resolveProducerOptions({ batching: { maxInFlight: 8 } }, 'in-process').batching?.maxInFlight).toBe(8);
    expect(resolveProducerOptions({ broker: 'http://b:1' }, 'in-process').batching?.maxInFlight).toBe(1);
  });

  it('keeps the declared events, topic by topic, and none when not given', () => {
    class OrderPlaced {}
    expect([
      ...resolveProducerOptions({ broker: 'http://b:1', events: { 'order.placed': OrderPlaced, tick: Number } }, false).events,
    ]).toEqual([
      ['order.placed', OrderPlaced],
      ['tick', Number],
    ]);
    expect(resolveProducerOptions({ broker: 'http://b:1' }, false).events.size).toBe(0);
  });

  it('accepts 0 retries and 0 delays', () => {
    const options = { broker: 'http://b:1', maxRetryCount: 0, retryDelayMs: 0, maxRetryDelayMs: 0 };
    expect(resolveProducerOptions(options, false)).toMatchObject({ maxRetryCount: 0, retryDelayMs: 0 });
  });

  it.each([
    [undefined, /^Producer options must be an object, got undefined/],
    [
      {},
      /^broker is required: give the broker's URL, like "http:\/\/localhost:8080" or "mmmq:\/\/localhost:8081", import MmmqBrokerModule in this application, or MmmqTestingModule in tests/,
    ],
    [{ broker: 8080 }, /^broker must be a URL string like "http:\/\/localhost:8080" or "mmmq:\/\/localhost:8081", got 8080/],
    [{ broker: 'not a url' }, /^broker must be a URL like .*, got "not a url"/],
    [{ broker: 'ws://b:1' }, /^broker must be an http, https, mmmq or mmmqs URL, got "ws:\/\/b:1"/],
    [{ broker: 'mmmqs://b' }, /^broker must be mmmqs:\/\/host:port for the publish stream, got "mmmqs:\/\/b"/],
    [{ broker: 'http://b:1', tls: 'ca.pem' }, /^tls must be an object \{ ca\? \}/],
    [{ broker: 'http://b:1', tls: { cert: 'x' } }, /^Unknown option tls\.cert; the only one is tls\.ca/],
    [{ broker: 'http://b:1', tls: { ca: [42] } }, /^tls\.ca must be PEM text or a Buffer, or an array of them/],
    [{ broker: 'mmmq://b' }, /^broker must be mmmq:\/\/host:port for the publish stream, got "mmmq:\/\/b"/],
    [{ broker: 'mmmq://b:1/path' }, /^broker must be mmmq:\/\/host:port for the publish stream/],
    [{ broker: 'http://b:1', batching: { maxInFlight: 2 } }, /^batching\.maxInFlight above 1 needs the publish stream/],
    [{ broker: 'mmmq://b:1', batching: { maxInFlight: 0 } }, /^batching\.maxInFlight must be a positive integer, got 0/],
    [{ broker: 'http://b:1/?x=1' }, /^broker must not have a query, fragment or user info/],
    [{ broker: 'http://user:secret@b:1' }, /^broker must not have a query, fragment or user info/],
    [{ broker: 'http://b:1', maxRetryCount: 1.5 }, /^maxRetryCount must be a non-negative integer, got 1.5/],
    [{ broker: 'http://b:1', maxRetryCount: '3' }, /^maxRetryCount must be a non-negative integer, got "3"/],
    [{ broker: 'http://b:1', retryDelayMs: -1 }, /^retryDelayMs must be a non-negative integer, got -1/],
    [{ broker: 'http://b:1', maxRetryDelayMs: NaN }, /^maxRetryDelayMs must be a non-negative integer, got NaN/],
    [{ broker: 'http://b:1', timeoutMs: 0 }, /^timeoutMs must be a positive integer, got 0/],
    [{ broker: 'http://b:1', timeoutMs: 2 ** 31 }, /^timeoutMs must be at most 2147483647, got 2147483648/],
    [{ broker: 'http://b:1', retries: 3 }, /^Unknown producer option "retries"; the options are broker, maxRetryCount/],
    [{ broker: 'http://b:1', events: [] }, /^events must be an object of topic → content class, got \[\]/],
    [{ broker: 'http://b:1', events: { 'order.*': Object } }, /^events\["order\.\*"\]: "order\.\*" is not a topic name \(no wildcards\)/],
    [{ broker: 'http://b:1', events: { 'order.placed': 'OrderPlaced' } }, /^events\["order\.placed"\] must be the content's class/],
  ])('refuses %j, naming the option', (options, message) => {
    const resolving = () => resolveProducerOptions(options, false);
    expect(resolving).toThrow(InvalidProducerOptionsError);
    expect(resolving).toThrow(message);
  });
});
