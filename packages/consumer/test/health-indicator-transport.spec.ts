import type { TransportSubscriber, TransportSubscriberState } from '@mmmq/core';
import { FrontHandler } from '../src/handling/front-handler';
import { MmmqConsumerHealthIndicator } from '../src/health/mmmq-consumer.health-indicator';
import { RegistrationStatus } from '../src/registration/registration-status';
import { TransportStatus } from '../src/transport/transport-status';

const HANDLERS = { running: 0, waiting: 0, longestRunningMs: 0, queueFullMs: 0 };

/** A subscriber whose state the test sets; `state` undefined: a subscriber without `state()` (the in-memory one). */
function subscriber(state?: () => TransportSubscriberState): TransportSubscriber {
  return { subscribe: async () => undefined, stopReceiving: async () => undefined, close: async () => undefined, ...(state && { state }) };
}

function indicatorOn(watched?: { name: string; subscriber: TransportSubscriber }): MmmqConsumerHealthIndicator {
  const status = { snapshot: () => ({ started: true, registered: ['billing.on-order'], pending: [] }) } as unknown as RegistrationStatus;
  const handler = { load: { running: 0, waiting: 0 }, stalls: () => ({ longestRunningMs: 0, queueFullMs: 0 }) } as unknown as FrontHandler;
  const transport = new TransportStatus();
  if (watched) transport.watch(watched.name, watched.subscriber);
  return new MmmqConsumerHealthIndicator(status, handler, transport);
}

describe('the consumer health indicator on a transport', () => {
  afterEach(() => jest.useRealTimers());

  it('is down while the subscriber does not receive, naming the transport, since when, for how long and why; up once it does again', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-12-01T08:00:10.000Z') });
    let state: TransportSubscriberState = {
      receiving: false,
      since: Date.parse('2026-12-01T08:00:00.000Z'),
      reason: 'disconnected, reconnecting: connect ECONNREFUSED 127.0.0.1:5672',
    };
    const indicator = indicatorOn({ name: 'rabbitmq', subscriber: subscriber(() => state) });

    expect(await indicator.isHealthy('mmmq')).toEqual({
      mmmq: {
        status: 'down',
        registered: ['billing.on-order'],
        pending: [],
        handlers: HANDLERS,
        transport: {
          name: 'rabbitmq',
          receiving: false,
          since: '2026-12-01T08:00:00.000Z',
          reason: 'disconnected, reconnecting: connect ECONNREFUSED 127.0.0.1:5672',
        },
        message:
          'the rabbitmq transport has not been receiving since 2026-12-01T08:00:00.000Z (10000 ms): ' +
          'disconnected, reconnecting: connect ECONNREFUSED 127.0.0.1:5672',
      },
    });

    state = { receiving: true, since: Date.parse('2026-12-01T08:00:12.000Z') };
    expect(indicator.check()).toEqual({
      status: 'up',
      registered: ['billing.on-order'],
      pending: [],
      handlers: HANDLERS,
      transport: { name: 'rabbitmq', receiving: true, since: '2026-12-01T08:00:12.000Z' },
    });
  });

  it('counts a subscriber without state() as receiving since the consumer subscribed with it', () => {
    jest.useFakeTimers({ now: Date.parse('2026-12-01T09:00:00.000Z') });
    const indicator = indicatorOn({ name: 'in-memory', subscriber: subscriber() });
    jest.setSystemTime(Date.parse('2026-12-01T09:05:00.000Z'));
    expect(indicator.check()).toMatchObject({
      status: 'up',
      transport: { name: 'in-memory', receiving: true, since: '2026-12-01T09:00:00.000Z' },
    });
  });

  it('has no transport entry on the MMMQ broker', () => {
    const health = indicatorOn().check();
    expect(health.status).toBe('up');
    expect(health).not.toHaveProperty('transport');
  });
});
