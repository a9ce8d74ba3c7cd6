import { InvalidRabbitMqOptionsError, RabbitMqTransport, RabbitMqTransportOptions, DEFAULT_RETRY_DELAYS_MS, bindingKeyOf } from '../src';
import { listener } from './support/rabbitmq-test-transport';

const URL = 'amqp://guest:guest@127.0.0.1:5672';

function create(options: unknown): RabbitMqTransport {
  return new RabbitMqTransport(options as RabbitMqTransportOptions);
}

describe('RabbitMqTransport options', () => {
  it('fills in the defaults', () => {
    expect(create({ url: URL }).options).toEqual({
      urls: [URL],
      exchange: 'mmmq',
      queuePrefix: '',
      retry: { maxDeliveries: 4, delaysMs: DEFAULT_RETRY_DELAYS_MS, deliveryLimit: 20 },
      prefetch: undefined,
      rejectUnroutable: false,
      confirmTimeoutMs: 30_000,
      connectTimeoutMs: 10_000,
      reconnect: { initialMs: 250, multiplier: 2, maxMs: 10_000, jitter: 0.2 },
    });
    expect(create({ url: [URL, 'amqps://node2:5671'] }).options.urls).toEqual([URL, 'amqps://node2:5671']);
  });

  it.each([
    [{ url: URL, prefech: 3 }, 'RabbitMqTransport options has unknown field(s) prefech'],
    [{ url: URL, retry: { maxDelivery: 3 } }, 'retry has unknown field(s) maxDelivery'],
    [{ url: URL, reconnect: { initial: 1 } }, 'reconnect has unknown field(s) initial'],
    [{}, 'url must be a non-blank string, got undefined'],
    [{ url: 'localhost:5672' }, 'url must be an amqp:// or amqps:// URL'],
    [{ url: 'not a url' }, 'url is not a URL'],
    [{ url: [URL, 'http://x'] }, 'url[1] must be an amqp:// or amqps:// URL, got the protocol "http:"'],
    [{ url: [] }, 'url must name at least one'],
    [{ url: URL, exchange: 'amq.topic' }, 'exchange must be'],
    [{ url: URL, exchange: 'has space' }, 'exchange must be'],
    [{ url: URL, retry: { maxDeliveries: 0 } }, 'retry.maxDeliveries must be a positive integer, got 0'],
    [{ url: URL, retry: { delaysMs: [] } }, 'retry.delaysMs must be a non-empty array'],
    [{ url: URL, retry: { delaysMs: [10, -1] } }, 'retry.delaysMs[1] must be a non-negative integer'],
    [{ url: URL, retry: { delaysMs: [3_600_001] } }, 'retry.delaysMs[0] must be at most 3600000'],
    [{ url: URL, prefetch: 70_000 }, 'prefetch must be at most 65535'],
    [{ url: URL, rejectUnroutable: 'yes' }, 'rejectUnroutable must be a boolean'],
    [{ url: URL, reconnect: { jitter: 1 } }, 'reconnect.jitter must be a number from 0 to below 1'],
  ])('refuses %j, naming the option', (options, expected) => {
    expect(() => create(options)).toThrow(InvalidRabbitMqOptionsError);
    expect(() => create(options)).toThrow(expected);
  });
});

describe('RabbitMqTransport.unsupported', () => {
  const transport = create({ url: URL });

  it('honours whole-segment patterns, startFrom latest and a rejecting backlog limit', () => {
    expect(
      transport.unsupported(listener('a', 'order.*.**', { startFrom: 'latest', backlogLimit: { maxBacklog: 10, overflow: 'reject' } })),
    ).toEqual([]);
    expect(bindingKeyOf('order.*.**')).toBe('order.*.#');
    expect(bindingKeyOf('**')).toBe('#');
  });

  it('names every feature of a listener it cannot honour', () => {
    const reasons = transport.unsupported(
      listener('a', 'order.v?', {
        selector: "region = 'eu'",
        startFrom: 'earliest',
        backlogLimit: { maxBacklog: 10, overflow: 'dropOldest' },
      }),
    );
    expect(reasons).toEqual([
      expect.stringContaining('the segment "v?"'),
      expect.stringContaining('selector: RabbitMQ topic exchanges route on the routing key only'),
      expect.stringContaining("startFrom 'earliest': RabbitMQ keeps no topic history"),
      expect.stringContaining("backlogLimit overflow 'dropOldest'"),
    ]);
    expect(transport.unsupported(listener('a', 'order-*'))).toEqual([expect.stringContaining('the segment "order-*"')]);
  });

  it('refuses startFrom at a time, naming it: RabbitMQ keeps no history to start at (or seek in)', () => {
    expect(transport.unsupported(listener('a', 'order.*', { startFrom: { time: '2026-12-07T10:00:00Z' } }))).toEqual([
      expect.stringMatching(
        /^startFrom \{"time":"2026-12-07T10:00:00Z"\}: RabbitMQ keeps no topic history to start at a time \(nor to seek in\)/,
      ),
    ]);
  });

  it('refuses a consumerId whose queue names would exceed 255 bytes, counting UTF-8 bytes and the longest suffix', () => {
    const prefixed = create({ url: URL, queuePrefix: 'p'.repeat(200) });
    // 200 + 40 + ".retry.3600000" (14) = 254 bytes: fits.
    expect(prefixed.unsupported(listener('c'.repeat(40), 'a.*'))).toEqual([]);
    // Two-byte characters: 200 + 2 × 21 + 14 = 256 bytes, although only 235 characters.
    expect(prefixed.unsupported(listener('é'.repeat(21), 'a.*'))).toEqual([
      expect.stringContaining(`consumerId: its RabbitMQ queue names would exceed RabbitMQ's 255-byte limit`),
    ]);
    expect(prefixed.unsupported(listener('c'.repeat(60), 'a.*'))[0]).toContain(
      'is 274 bytes): shorten the consumerId or queuePrefix by 19 bytes',
    );
  });
});
