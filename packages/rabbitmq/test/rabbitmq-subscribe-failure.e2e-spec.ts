import { connect, type ChannelModel } from 'amqplib';
import { listener, RABBITMQ_URL, RecordingHandler, TestResources, testTransport } from './support/rabbitmq-test-transport';

/** amqplib's ChannelModel class (its typings name only the interface), to count the channels it opens. */
async function channelModelPrototype(): Promise<ChannelModel> {
  const model = await connect(RABBITMQ_URL);
  await model.close();
  return Object.getPrototypeOf(model) as ChannelModel;
}

describe('RabbitMqSubscriber: a subscription RabbitMQ cannot set up', () => {
  let resources: TestResources;

  afterEach(async () => {
    jest.restoreAllMocks();
    await resources.dispose();
  });

  it('fails at once on a live connection, without retrying, and closes the channel it opened', async () => {
    // A queue name over 255 bytes (unsupported() says so; here subscribe is called directly): amqplib cannot encode it.
    resources = new TestResources(testTransport({ queuePrefix: 'p'.repeat(200), connectTimeoutMs: 3000 }));
    const opened = jest.spyOn(await channelModelPrototype(), 'createConfirmChannel');
    const startedAt = Date.now();
    await expect(resources.subscriber().subscribe(listener('c'.repeat(60), 'a.*'), new RecordingHandler().handle)).rejects.toThrow();
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(opened).toHaveBeenCalledTimes(1);
    const channel = (await opened.mock.results[0].value) as unknown as { ch: number; connection: { channels: unknown[] } };
    // amqplib frees a closed channel's slot in its connection's table.
    expect(channel.connection.channels[channel.ch]).toBeNull();
  });
});
