import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import {
  Dispatcher,
  DispatcherHostJoinedEvent,
  DispatcherHostLeftEvent,
  DispatcherRegisteredEvent,
  DispatcherRemovedEvent,
  DispatcherUpdatedEvent,
  MessageDeadLetteredEvent,
  MmmqBrokerEvent,
  MmmqBrokerModule,
  SubscriptionResumedEvent,
  SubscriptionStalledEvent,
  TopicCreatedEvent,
} from '../../src';
import { waitUntil } from '../delivery/pull.fixture';
import { TestConsumer } from '../support/test-consumer';

/** A host application's listener: one `@OnEvent` handler per broker event, recording what arrives in order. */
@Injectable()
class BrokerEventLog {
  readonly received: Array<{ name: string; payload: unknown }> = [];

  of<T>(name: string): T[] {
    return this.received.filter((event) => event.name === name).map((event) => event.payload as T);
  }

  @OnEvent(MmmqBrokerEvent.TOPIC_CREATED)
  topicCreated(event: TopicCreatedEvent) {
    this.received.push({ name: MmmqBrokerEvent.TOPIC_CREATED, payload: event });
  }

  @OnEvent(MmmqBrokerEvent.DISPATCHER_REGISTERED)
  registered(event: DispatcherRegisteredEvent) {
    this.received.push({ name: MmmqBrokerEvent.DISPATCHER_REGISTERED, payload: event });
  }

  @OnEvent(MmmqBrokerEvent.DISPATCHER_UPDATED)
  updated(event: DispatcherUpdatedEvent) {
    this.received.push({ name: MmmqBrokerEvent.DISPATCHER_UPDATED, payload: event });
  }

  @OnEvent(MmmqBrokerEvent.DISPATCHER_REMOVED)
  removed(event: DispatcherRemovedEvent) {
    this.received.push({ name: MmmqBrokerEvent.DISPATCHER_REMOVED, payload: event });
  }

  @OnEvent(MmmqBrokerEvent.DISPATCHER_HOST_JOINED)
  hostJoined(event: DispatcherHostJoinedEvent) {
    this.received.push({ name: MmmqBrokerEvent.DISPATCHER_HOST_JOINED, payload: event });
  }

  @OnEvent(MmmqBrokerEvent.DISPATCHER_HOST_LEFT)
  hostLeft(event: DispatcherHostLeftEvent) {
    this.received.push({ name: MmmqBrokerEvent.DISPATCHER_HOST_LEFT, payload: event });
  }

  @OnEvent(MmmqBrokerEvent.MESSAGE_DEAD_LETTERED)
  deadLettered(event: MessageDeadLetteredEvent) {
    this.received.push({ name: MmmqBrokerEvent.MESSAGE_DEAD_LETTERED, payload: event });
  }

  @OnEvent(MmmqBrokerEvent.SUBSCRIPTION_STALLED)
  stalled(event: SubscriptionStalledEvent) {
    this.received.push({ name: MmmqBrokerEvent.SUBSCRIPTION_STALLED, payload: event });
  }

  @OnEvent(MmmqBrokerEvent.SUBSCRIPTION_RESUMED)
  resumed(event: SubscriptionResumedEvent) {
    this.received.push({ name: MmmqBrokerEvent.SUBSCRIPTION_RESUMED, payload: event });
  }

  /** Errors propagate out of this one (`suppressErrors: false`): the broker must log them, never fail because of them. */
  @OnEvent(MmmqBrokerEvent.TOPIC_CREATED, { suppressErrors: false })
  failOnBoom(event: TopicCreatedEvent) {
    if (event.topic === 'boom') throw new Error('a listener that fails');
  }
}

describe('broker lifecycle events in a host application with EventEmitterModule', () => {
  let app: INestApplication;
  let url: string;
  let rootDir: string;
  let log: BrokerEventLog;
  let dispatcher: Dispatcher;
  const consumer = new TestConsumer();

  const publish = async (topic: string, content: unknown) => {
    const response = await fetch(`${url}/mmmq/messages`, {
      method: 'POST',
      body: JSON.stringify({ topic, content }),
      headers: { 'content-type': 'application/json' },
    });
    return { status: response.status, body: (await response.json()) as { id: string; offset: number } };
  };
  const request = (method: string, path: string, body?: unknown) =>
    fetch(url + path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-events-'));
    await consumer.start();
    @Module({
      imports: [
        EventEmitterModule.forRoot(),
        MmmqBrokerModule.forRoot({
          persistence: { rootDir },
          delivery: { maxNackRetries: 0, backoff: { initialMs: 50, maxMs: 200 } },
        }),
      ],
      providers: [BrokerEventLog],
    })
    class HostModule {}
    app = await NestFactory.create(HostModule, { bodyParser: false, logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    log = app.get(BrokerEventLog);
    dispatcher = app.get(Dispatcher);
  });

  afterAll(async () => {
    await app.close();
    await consumer.stop();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('announces a topic when the first publish creates it, once', async () => {
    expect((await publish('order.created', { n: 0 })).status).toBe(200);
    expect((await publish('order.created', { n: 1 })).status).toBe(200);
    expect(log.of(MmmqBrokerEvent.TOPIC_CREATED)).toEqual([{ topic: 'order.created', reserved: false }]);
  });

  it('keeps publishing when a listener of the event throws', async () => {
    expect((await publish('boom', { n: 0 })).status).toBe(200);
    expect(log.of<TopicCreatedEvent>(MmmqBrokerEvent.TOPIC_CREATED).map((event) => event.topic)).toContain('boom');
    expect((await publish('boom', { n: 1 })).status).toBe(200);
  });

  it('announces dispatchers registered, joined, left, updated and removed through the Dispatcher service', async () => {
    const before = log.received.length;
    await dispatcher.add({ consumerId: 'audit', host: 'http://127.0.0.1:9', pattern: 'audit.*' });
    expect(await dispatcher.add({ consumerId: 'audit', host: 'http://127.0.0.1:10', pattern: 'audit.*' })).toMatchObject({ joined: true });
    await dispatcher.removeHost('audit', 'http://127.0.0.1:10');
    await dispatcher.update('audit', { host: 'http://127.0.0.1:9', pattern: 'audit.**' });
    await dispatcher.remove('audit');

    const first = { consumerId: 'audit', host: { protocol: 'HTTP', address: '127.0.0.1', port: 9 }, pattern: 'audit.*' };
    expect(log.received.slice(before)).toEqual([
      { name: MmmqBrokerEvent.DISPATCHER_REGISTERED, payload: { consumerId: 'audit', dispatcher: expect.objectContaining(first) } },
      {
        name: MmmqBrokerEvent.DISPATCHER_HOST_JOINED,
        payload: { consumerId: 'audit', host: 'http://127.0.0.1:10', hosts: ['http://127.0.0.1:9', 'http://127.0.0.1:10'] },
      },
      {
        name: MmmqBrokerEvent.DISPATCHER_HOST_LEFT,
        payload: { consumerId: 'audit', host: 'http://127.0.0.1:10', hosts: ['http://127.0.0.1:9'] },
      },
      {
        name: MmmqBrokerEvent.DISPATCHER_UPDATED,
        payload: {
          consumerId: 'audit',
          dispatcher: expect.objectContaining({ ...first, pattern: 'audit.**' }),
          previous: expect.objectContaining(first),
        },
      },
      {
        name: MmmqBrokerEvent.DISPATCHER_REMOVED,
        payload: { consumerId: 'audit', dispatcher: expect.objectContaining({ pattern: 'audit.**' }) },
      },
    ]);
  });

  it('announces dispatchers registered and removed over HTTP, and never shows a signing secret', async () => {
    const before = log.received.length;
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    expect((await request('POST', '/mmmq/dispatchers', { consumerId: 'web', pattern: 'web.*', signingSecret: secret })).status).toBe(201);
    expect((await request('DELETE', '/mmmq/dispatchers/web')).status).toBe(204);
    const events = log.received.slice(before);
    expect(events.map((event) => event.name)).toEqual([MmmqBrokerEvent.DISPATCHER_REGISTERED, MmmqBrokerEvent.DISPATCHER_REMOVED]);
    expect(events[0].payload).toEqual({ consumerId: 'web', dispatcher: expect.objectContaining({ pattern: 'web.*', signed: true }) });
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it('announces a NACKed message when it is dead-lettered, and the dead-letter topic it creates', async () => {
    consumer.reply = (delivery) => (delivery.consumerId === 'billing' ? 'NACK' : 'ACK');
    const published = await publish('invoice.created', { n: 7 });
    await dispatcher.add({ consumerId: 'billing', host: consumer.url, pattern: 'invoice.*' });
    await waitUntil(() => log.of(MmmqBrokerEvent.MESSAGE_DEAD_LETTERED).length === 1, 'the dead-letter event');

    expect(log.of(MmmqBrokerEvent.MESSAGE_DEAD_LETTERED)).toEqual([
      {
        consumerId: 'billing',
        topic: 'invoice.created',
        offset: 0,
        id: published.body.id,
        reason: 'NACK',
        attempts: 1,
        lastError: 'NACK without a message',
        deadLetterTopic: '__dlq.billing',
        deadLetterOffset: 0,
      },
    ]);
    expect(log.of(MmmqBrokerEvent.TOPIC_CREATED)).toContainEqual({ topic: '__dlq.billing', reserved: true });
  });

  it('announces a subscription stalled once while pushes to a host fail, and resumed when it answers again', async () => {
    let failures = 3;
    consumer.reply = (delivery) => (delivery.consumerId === 'shipping' && failures-- > 0 ? { status: 500 } : 'ACK');
    await dispatcher.add({ consumerId: 'shipping', host: consumer.url, pattern: 'parcel.*' });
    await publish('parcel.sent', { n: 1 });
    await waitUntil(() => log.of(MmmqBrokerEvent.SUBSCRIPTION_RESUMED).length === 1, 'the resumed event');

    const where = { consumerId: 'shipping', topic: 'parcel.sent', host: consumer.url };
    const stall = log.received.filter((event) => event.name.startsWith('mmmq.subscription.'));
    expect(stall).toEqual([
      { name: MmmqBrokerEvent.SUBSCRIPTION_STALLED, payload: { ...where, reason: 'failing', error: expect.stringContaining('HTTP 500') } },
      { name: MmmqBrokerEvent.SUBSCRIPTION_RESUMED, payload: { ...where, stalledForMs: expect.any(Number), failures: 3 } },
    ]);
    expect((stall[1].payload as SubscriptionResumedEvent).stalledForMs).toBeGreaterThan(0);
  });

  it('announces a host that refuses the pushes as unauthorized as stalled with that reason', async () => {
    let accept = false;
    consumer.reply = (delivery) => (delivery.consumerId !== 'vault' || accept ? 'ACK' : { status: 401, body: { acknowledgement: 'NACK' } });
    await dispatcher.add({ consumerId: 'vault', host: consumer.url, pattern: 'secret.*' });
    await publish('secret.kept', { n: 1 });
    await waitUntil(() => log.of(MmmqBrokerEvent.SUBSCRIPTION_STALLED).length === 2, 'the stalled event');
    accept = true;
    await waitUntil(() => log.of(MmmqBrokerEvent.SUBSCRIPTION_RESUMED).length === 2, 'the resumed event');

    expect(log.of<SubscriptionStalledEvent>(MmmqBrokerEvent.SUBSCRIPTION_STALLED)[1]).toMatchObject({
      consumerId: 'vault',
      topic: 'secret.kept',
      reason: 'unauthorized',
    });
  });
});
