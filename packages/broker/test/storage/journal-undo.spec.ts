import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { PublishIntake } from '../../src/publish/publish-intake';
import { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { ioError } from './io-spy';
import { NO_AUTOMATIC_FLUSH } from './recovered-state';
import { useTempDir } from './temp-dir';

// The failures are provoked; what the journal logs about them is expected.
Logger.overrideLogger(false);

describe('a group whose topic write failed', () => {
  const dir = useTempDir();
  afterEach(() => jest.restoreAllMocks());

  it('is cut back from every topic it wrote, even after the cut of one of them failed', async () => {
    const container = TopicQueueContainer.standalone(persistenceOptions(join(dir(), 'broker'), NO_AUTOMATIC_FLUSH));
    const [alpha, beta, gamma] = await Promise.all(['alpha', 'beta', 'gamma'].map((name) => container.getOrCreate(Topic.of(name))));
    const intake = new PublishIntake(container);
    const write = TopicQueue.prototype.write;
    jest.spyOn(TopicQueue.prototype, 'write').mockImplementation(function (this: TopicQueue, ...args) {
      return this === gamma ? Promise.reject(ioError('ENOSPC', 'write')) : write.apply(this, args);
    });
    const cutBack = TopicQueue.prototype.cutBack;
    jest.spyOn(TopicQueue.prototype, 'cutBack').mockImplementation(function (this: TopicQueue, offset: number) {
      return this === alpha ? Promise.reject(ioError('EIO', 'open')) : cutBack.call(this, offset);
    });
    const messages = ['alpha', 'beta', 'gamma'].map((topic, i) => ({
      topic: Topic.of(topic),
      id: `m${i}`,
      headers: {},
      content: Buffer.from('1'),
    }));
    await expect(intake.publishBatch(messages)).rejects.toThrow();
    // Beta's cut ran although alpha's failed first: nothing of the refused group stays in it.
    expect(beta.writtenEnd).toBe(0);
    await container.onApplicationShutdown();
  });
});
