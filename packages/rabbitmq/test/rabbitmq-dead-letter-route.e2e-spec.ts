import { Acknowledgement } from '@mmmq/core';
import { waitFor } from '@mmmq/test-support';
import { connect, type GetMessage } from 'amqplib';
import { listenerNames } from '../src';
import { drainQueue } from './support/dead-letters';
import { listener, message, RABBITMQ_URL, RecordingHandler, TestResources, testTransport } from './support/rabbitmq-test-transport';

describe('RabbitMqTransport: dead letters when their route was deleted while connected', () => {
  let resources: TestResources;

  beforeEach(() => {
    resources = new TestResources(testTransport());
  });

  afterEach(() => resources.dispose());

  it('declares the dead-letter exchange, queue and binding again before dead-lettering, so the dead letter is kept', async () => {
    const handler = new RecordingHandler(() => ({ acknowledgement: Acknowledgement.NACK, retry: false, message: 'refused' }));
    await resources.subscriber().subscribe(listener('orphan', 'orphan.*'), handler.handle);
    const names = listenerNames(resources.transport.options, 'orphan');
    const admin = await connect(RABBITMQ_URL);
    const channel = await admin.createChannel();
    await channel.deleteQueue(names.deadLetterQueue);
    await channel.deleteExchange(names.deadLetterExchange);
    await admin.close();

    const sent = message('orphan.a', 1);
    await resources.publisher().publish(sent);
    const letters: GetMessage[] = [];
    await waitFor(async () => (letters.push(...(await drainQueue(names.deadLetterQueue).catch(() => []))), letters.length >= 1), {
      message: `the dead letter in ${names.deadLetterQueue}`,
    });
    expect(letters.map((letter) => letter.properties.messageId)).toEqual([sent.id]);
    expect(handler.ids()).toEqual([sent.id]);
  });
});
