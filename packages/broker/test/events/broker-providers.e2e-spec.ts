import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitter2, EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import {
  BrokerBus,
  CheckpointDirectory,
  Dispatcher,
  DispatcherChangedEvent,
  MmmqBrokerEvent,
  MmmqBrokerModule,
  RecordsCommittedEvent,
  SegmentFileChain,
  SubscriptionAttachedEvent,
  TopicOpenedEvent,
  TopicQueue,
  TopicQueueContainer,
} from '../../src';
import { TopicQueueFactory } from '../../src/storage/topic-queue.factory';
import { waitUntil } from '../delivery/pull.fixture';

/** A host provider that follows the broker's internal wiring with `@OnEvent`, subscribed on the broker's bus. */
@Injectable()
class WiringLog implements OnModuleInit {
  readonly received: Array<{ name: string; detail: string }> = [];

  constructor(private readonly bus: BrokerBus) {}

  onModuleInit(): void {
    this.bus.listen(this);
  }

  @OnEvent(TopicOpenedEvent.NAME)
  topicOpened({ queue }: TopicOpenedEvent) {
    this.received.push({ name: TopicOpenedEvent.NAME, detail: queue.name });
  }

  @OnEvent(RecordsCommittedEvent.NAME)
  recordsCommitted({ topics }: RecordsCommittedEvent) {
    this.received.push({ name: RecordsCommittedEvent.NAME, detail: topics.map((topic) => topic.name).join(',') });
  }

  @OnEvent(DispatcherChangedEvent.NAME)
  dispatcherChanged({ previous, current }: DispatcherChangedEvent) {
    this.received.push({ name: DispatcherChangedEvent.NAME, detail: `${previous?.consumerId ?? '-'} → ${current?.consumerId ?? '-'}` });
  }

  @OnEvent(SubscriptionAttachedEvent.NAME)
  subscriptionAttached({ topic, consumerId }: SubscriptionAttachedEvent) {
    this.received.push({ name: SubscriptionAttachedEvent.NAME, detail: `${topic} → ${consumerId}` });
  }
}

describe('the broker providers and their event wiring, in a host application with its own EventEmitterModule', () => {
  let app: INestApplication;
  let url: string;
  let rootDir: string;
  let log: WiringLog;
  const hostEvents: string[] = [];

  const post = (path: string, body: unknown) =>
    fetch(url + path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-providers-'));
    @Module({
      imports: [EventEmitterModule.forRoot({ wildcard: true }), MmmqBrokerModule.forRoot({ persistence: { rootDir } })],
      providers: [WiringLog],
    })
    class HostModule {}
    app = await NestFactory.create(HostModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    log = app.get(WiringLog);
    const host = app.get(EventEmitter2);
    host.onAny((name) => hostEvents.push(String(name)));
    // The broker builds a lifecycle event only for a name with a listener of its own (onAny does not count).
    for (const name of [MmmqBrokerEvent.TOPIC_CREATED, MmmqBrokerEvent.DISPATCHER_REGISTERED]) host.on(name, () => undefined);
  });

  afterAll(async () => {
    await app.close();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('lets the host inject Dispatcher, each topic queue, its segment chain and checkpoint folder, and the bus', async () => {
    const queues = app.get(TopicQueueContainer);
    const opened = jest.spyOn(app.get(TopicQueueFactory), 'open');
    expect((await post('/mmmq/messages', { topic: 'inventory.counted', content: { n: 0 } })).status).toBe(200);

    const queue = queues.get('inventory.counted');
    expect(queue).toBeInstanceOf(TopicQueue);
    expect(queue?.chain).toBeInstanceOf(SegmentFileChain);
    expect(queue?.checkpoints).toBeInstanceOf(CheckpointDirectory);
    expect(queue?.tailOffset).toBe(1);
    // The container opened the topic through the injected factory, not with a `new` of its own.
    expect(opened.mock.calls.map(([topic]) => topic.name)).toEqual(['inventory.counted']);
    expect(app.get(Dispatcher).list()).toEqual([]);
    expect(app.get(BrokerBus)).toBe(queues.bus);
  });

  it('wires one publish through the bus: dispatcher changed, topic opened, subscription attached, one commit event, delivered', async () => {
    const before = log.received.length;
    await app.get(Dispatcher).add({ consumerId: 'billing', pattern: 'order.*' });
    expect((await post('/mmmq/messages', { topic: 'order.created', content: { n: 1 } })).status).toBe(200);

    expect(log.received.slice(before)).toEqual([
      { name: DispatcherChangedEvent.NAME, detail: '- → billing' },
      { name: TopicOpenedEvent.NAME, detail: 'order.created' },
      { name: SubscriptionAttachedEvent.NAME, detail: 'order.created → billing' },
      { name: RecordsCommittedEvent.NAME, detail: 'order.created' },
    ]);
    // Delivery took its cue from the commit event: the pull consumer gets the message.
    const fetched = await post('/mmmq/consumers/billing/fetch', { max: 10, waitMs: 5_000 });
    expect(fetched.status).toBe(200);
    const { messages } = (await fetched.json()) as { messages: Array<{ topic: string; content: unknown }> };
    expect(messages.map(({ topic, content }) => ({ topic, content }))).toEqual([{ topic: 'order.created', content: { n: 1 } }]);
  });

  it('emits one commit event per journal record, never one per message', async () => {
    const before = log.received.length;
    const batch = Array.from({ length: 50 }, (_, n) => ({ topic: 'order.created', content: { n } }));
    expect((await post('/mmmq/messages/batch', { messages: batch })).status).toBe(200);
    await waitUntil(() => app.get(TopicQueueContainer).get('order.created')!.tailOffset === 51, 'the batch committed');
    const commits = log.received.slice(before).filter(({ name }) => name === RecordsCommittedEvent.NAME);
    expect(commits).toEqual([{ name: RecordsCommittedEvent.NAME, detail: 'order.created' }]);
  });

  it("keeps the internal wiring off the host's emitter, which still gets the lifecycle events", async () => {
    await waitUntil(() => hostEvents.includes(MmmqBrokerEvent.DISPATCHER_REGISTERED), 'the host saw the dispatcher registered');
    expect(hostEvents).toEqual(expect.arrayContaining([MmmqBrokerEvent.TOPIC_CREATED, MmmqBrokerEvent.DISPATCHER_REGISTERED]));
    expect(hostEvents.filter((name) => name.startsWith('mmmq.log.') || name.startsWith('mmmq.registry.'))).toEqual([]);
  });
});
