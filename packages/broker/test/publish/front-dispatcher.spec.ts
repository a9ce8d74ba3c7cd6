import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { FrontDispatcher } from '../../src/publish/front-dispatcher';
import { decodeEnvelope } from '../../src/publish/message-envelope';
import { PublishableMessage } from '../../src/publish/publish-request.parser';
import { MixedTopicBatchError } from '../../src/publish/publish.errors';
import { TopicQueueContainer } from '../../src/storage';

const message = (topic: string, id: string, content = '{}'): PublishableMessage => ({
  topic: Topic.of(topic),
  id,
  headers: { source: 'test' },
  content: Buffer.from(content),
});

describe('FrontDispatcher', () => {
  let rootDir: string;
  let queues: TopicQueueContainer;
  let dispatcher: FrontDispatcher;

  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-dispatcher-'));
    queues = new TopicQueueContainer({ rootDir, segmentMaxBytes: 1024 * 1024 }, new EventEmitter2());
    dispatcher = new FrontDispatcher(queues);
  });

  afterEach(async () => {
    await queues.onApplicationShutdown();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('stores an envelope around the content and answers with its offset', async () => {
    expect(await dispatcher.publish(message('orders', 'a', '[1]'))).toEqual({ id: 'a', topic: 'orders', offset: 0 });
    expect(await dispatcher.publish(message('orders', 'b'))).toEqual({ id: 'b', topic: 'orders', offset: 1 });
    const stored = decodeEnvelope((await queues.get('orders')?.peek(0)) ?? Buffer.alloc(0));
    expect(stored).toMatchObject({ id: 'a', topic: 'orders', headers: { source: 'test' } });
    expect(stored.content.toString()).toBe('[1]');
  });

  it('stores a batch at consecutive offsets in request order', async () => {
    await dispatcher.publish(message('orders', 'first'));
    const published = await dispatcher.publishBatch([message('orders', 'x'), message('orders', 'y')]);
    expect(published).toEqual([
      { id: 'x', topic: 'orders', offset: 1 },
      { id: 'y', topic: 'orders', offset: 2 },
    ]);
    const second = decodeEnvelope((await queues.get('orders')?.peek(2)) ?? Buffer.alloc(0));
    expect(second.id).toBe('y');
  });

  it('refuses a batch spanning topics before opening any of them', async () => {
    await expect(dispatcher.publishBatch([message('a', '1'), message('a', '2'), message('b', '3')])).rejects.toThrow(
      MixedTopicBatchError,
    );
    expect(queues.list()).toEqual([]);
    await expect(readdir(join(rootDir, 'topics'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
