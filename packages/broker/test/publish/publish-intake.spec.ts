import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { PublishIntake } from '../../src/publish/publish-intake';
import { decodeEnvelope } from '../../src/format/message-envelope';
import type { PublishableMessage } from '../../src/format/publishable-message';
import { TopicQueueContainer } from '../../src/storage';
import { persistenceOptions } from '../support/topic-fixture';

const message = (topic: string, id: string, content = '{}'): PublishableMessage => ({
  topic: Topic.of(topic),
  id,
  headers: { source: 'test' },
  content: Buffer.from(content),
});

describe('PublishIntake', () => {
  let rootDir: string;
  let queues: TopicQueueContainer;
  let intake: PublishIntake;

  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-intake-'));
    queues = TopicQueueContainer.standalone(persistenceOptions(rootDir, { segmentMaxBytes: 1024 * 1024 }));
    intake = new PublishIntake(queues);
  });

  afterEach(async () => {
    await queues.onApplicationShutdown();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('stores an envelope around the content and answers with its offset', async () => {
    expect(await intake.publish(message('orders', 'a', '[1]'))).toEqual({
      id: 'a',
      topic: 'orders',
      offset: 0,
      deliveryMode: 'persistent',
    });
    expect(await intake.publish(message('orders', 'b'))).toEqual({ id: 'b', topic: 'orders', offset: 1, deliveryMode: 'persistent' });
    const stored = decodeEnvelope((await queues.get('orders')?.peek(0)) ?? Buffer.alloc(0));
    expect(stored).toMatchObject({ id: 'a', topic: 'orders', headers: { source: 'test' } });
    expect(stored.content.toString()).toBe('[1]');
  });

  it('stores a batch at consecutive offsets in request order', async () => {
    await intake.publish(message('orders', 'first'));
    const published = await intake.publishBatch([message('orders', 'x'), message('orders', 'y')]);
    expect(published).toEqual([
      { id: 'x', topic: 'orders', offset: 1, deliveryMode: 'persistent' },
      { id: 'y', topic: 'orders', offset: 2, deliveryMode: 'persistent' },
    ]);
    const second = decodeEnvelope((await queues.get('orders')?.peek(2)) ?? Buffer.alloc(0));
    expect(second.id).toBe('y');
  });

  it('commits a batch spanning topics in one journal record: each topic at consecutive offsets, in batch order', async () => {
    await intake.publish(message('a', 'before'));
    const commits = queues.journal.stats.commits;
    const published = await intake.publishBatch([message('a', '1'), message('b', '2'), message('a', '3')]);
    expect(published).toEqual([
      { id: '1', topic: 'a', offset: 1, deliveryMode: 'persistent' },
      { id: '2', topic: 'b', offset: 0, deliveryMode: 'persistent' },
      { id: '3', topic: 'a', offset: 2, deliveryMode: 'persistent' },
    ]);
    expect(queues.journal.stats.commits - commits).toBe(1);
    expect(decodeEnvelope((await queues.get('a')?.peek(2)) ?? Buffer.alloc(0)).id).toBe('3');
    expect(decodeEnvelope((await queues.get('b')?.peek(0)) ?? Buffer.alloc(0)).id).toBe('2');
  });
});
