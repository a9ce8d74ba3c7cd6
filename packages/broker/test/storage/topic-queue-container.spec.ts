import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { BrokerEvents } from '../../src/events/broker-events';
import { MmmqBrokerEvent } from '../../src/events/mmmq-broker-event';
import { TopicCreatedEvent } from '../../src/events/topic-created.event';
import { StorageUnavailableError, TopicNameConflictError } from '../../src/storage/storage.errors';
import { TopicQueueBootstrapper } from '../../src/storage/topic-queue-bootstrapper';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { TopicOpenedEvent } from '../../src/storage/topic-opened.event';
import { bytes, useTempDir } from './temp-dir';
import { segmentPaths, writeSegment } from './segment-files';
import { Logger } from '@nestjs/common';
import { persistenceOptions } from '../support/topic-fixture';

// These tests provoke failures on purpose; what the broker logs about them is expected, so it is not printed.
Logger.overrideLogger(false);

describe('TopicQueueContainer and TopicQueueBootstrapper', () => {
  const dir = useTempDir();
  const containers: TopicQueueContainer[] = [];
  const emitter = new EventEmitter2();
  const events = new BrokerEvents(emitter);
  const newContainer = () => {
    const container = TopicQueueContainer.standalone(persistenceOptions(dir(), { segmentMaxBytes: 1024 * 1024 }), events);
    containers.push(container);
    return container;
  };
  const boot = async () => {
    const container = newContainer();
    await new TopicQueueBootstrapper(container).onApplicationBootstrap();
    return container;
  };
  afterEach(async () => {
    emitter.removeAllListeners();
    await Promise.all(containers.splice(0).map((container) => container.onApplicationShutdown()));
  });

  it('creates a queue on first use, once, and announces it', async () => {
    const announced: string[] = [];
    const created: TopicCreatedEvent[] = [];
    emitter.on(MmmqBrokerEvent.TOPIC_CREATED, (event: TopicCreatedEvent) => created.push(event));
    const container = newContainer();
    container.bus.on<TopicOpenedEvent>(TopicOpenedEvent.NAME, ({ queue }) => announced.push(queue.topic.name));
    const [a, b] = await Promise.all([container.getOrCreate(Topic.of('order.created')), container.getOrCreate(Topic.of('order.created'))]);
    expect(a).toBe(b);
    expect(announced).toEqual(['order.created']);
    expect(created).toEqual([{ topic: 'order.created', reserved: false }]);
    expect(container.list().map((queue) => queue.topic.name)).toEqual(['order.created']);
    expect(a.dir).toBe(join(dir(), 'topics', 'order.created'));
  });

  it('refuses a topic that differs from an existing one only in case', async () => {
    const container = newContainer();
    await container.getOrCreate(Topic.of('order.created'));
    await expect(container.getOrCreate(Topic.of('Order.Created'))).rejects.toThrow(TopicNameConflictError);
  });

  it('restores every topic at boot and continues offsets, announcing them as opened but not as created', async () => {
    const first = newContainer();
    const queue = await first.getOrCreate(Topic.of('a'));
    await queue.offerAll([bytes('1'), bytes('2')]);
    await (await first.getOrCreate(Topic.of('b.c'))).offer(bytes('x'));
    await first.onApplicationShutdown();

    const created: TopicCreatedEvent[] = [];
    emitter.on(MmmqBrokerEvent.TOPIC_CREATED, (event: TopicCreatedEvent) => created.push(event));
    const opened: string[] = [];
    const container = newContainer();
    container.bus.on<TopicOpenedEvent>(TopicOpenedEvent.NAME, ({ queue }) => opened.push(queue.topic.name));
    await new TopicQueueBootstrapper(container).onApplicationBootstrap();
    expect(opened.sort()).toEqual(['a', 'b.c']);
    expect(created).toEqual([]);
    expect(
      container
        .list()
        .map((restored) => restored.topic.name)
        .sort(),
    ).toEqual(['a', 'b.c']);
    expect(container.get('a')?.tailOffset).toBe(2);
    expect(await container.get('a')?.offer(bytes('3'))).toBe(2);
  });

  it('recreates a topic whose directory a power loss took (it was never flushed) from the journal', async () => {
    const container = newContainer();
    const queue = await container.getOrCreate(Topic.of('order.created'));
    await queue.offerAll([bytes('a'), bytes('b')]);
    // A crash copy without the topic's directory: nothing made it durable yet, the journal holds its entries.
    const crashed = join(dir(), 'crashed');
    cpSync(join(dir(), 'journal'), join(crashed, 'journal'), { recursive: true });
    const created: TopicCreatedEvent[] = [];
    emitter.on(MmmqBrokerEvent.TOPIC_CREATED, (event: TopicCreatedEvent) => created.push(event));
    const recovered = TopicQueueContainer.standalone(persistenceOptions(crashed), events);
    containers.push(recovered);
    const restored = await recovered.getOrCreate(Topic.of('order.created'));
    expect((await restored.peekMany(0, 10)).map(String)).toEqual(['a', 'b']);
    // It was created before the power loss; the replay only brings its directory back.
    expect(created).toEqual([]);
  });

  it('boots without a topics directory', async () => {
    expect((await boot()).list()).toEqual([]);
  });

  it('restores a topic written by the original Java broker', async () => {
    const topicDir = join(dir(), 'topics', 'order.created');
    mkdirSync(join(topicDir, 'checkpoints'), { recursive: true });
    writeSegment(topicDir, ['{"topic":{"name":"order.created"},"content":{"id":1}}']);
    const container = await boot();
    expect(String(await container.get('order.created')?.peek(0))).toContain('"id":1');
  });

  it('skips directories that are not valid topic names, and a damaged topic does not stop the others', async () => {
    mkdirSync(join(dir(), 'topics', '..bad'), { recursive: true });
    mkdirSync(join(dir(), 'topics', 'broken'), { recursive: true });
    mkdirSync(join(dir(), 'topics', 'good'), { recursive: true });
    writeSegment(join(dir(), 'topics', 'good'), ['ok']);
    // A directory where the data file should be makes the segment unopenable.
    mkdirSync(segmentPaths(join(dir(), 'topics', 'broken')).data);
    writeFileSync(join(dir(), 'topics', 'stray-file'), 'x');

    const container = await boot();
    expect(container.list().map((queue) => queue.topic.name)).toEqual(['good']);
    await expect(container.getOrCreate(Topic.of('broken'))).rejects.toThrow(StorageUnavailableError);
  });

  it('refuses new topics once shutting down', async () => {
    const container = newContainer();
    await container.onApplicationShutdown();
    await container.onApplicationShutdown();
    await expect(container.getOrCreate(Topic.of('late'))).rejects.toThrow(StorageUnavailableError);
  });
});
