import { waitFor } from '@mmmq/test-support';
import { connect } from 'amqplib';
import { listenerNames } from '../src';
import { listener, message, RABBITMQ_URL, RecordingHandler, TestResources, proxiedResources } from './support/rabbitmq-test-transport';
import { TcpProxy } from './support/tcp-proxy';

describe('RabbitMqSubscriber: one listener’s channel lost while the connection lives', () => {
  let proxy: TcpProxy;
  let resources: TestResources;

  beforeEach(async () => {
    ({ proxy, resources } = await proxiedResources());
  });

  afterEach(async () => {
    await resources.dispose();
    await proxy.stop();
  });

  it('reopens only that listener’s channel (its queue declared again), without reconnecting the others', async () => {
    const subscriber = resources.subscriber();
    const deleted = new RecordingHandler();
    const other = new RecordingHandler();
    await subscriber.subscribe(listener('deleted', 'reopen.a'), deleted.handle);
    await subscriber.subscribe(listener('other', 'reopen.b'), other.handle);
    const connections = proxy.accepted;
    const admin = await connect(RABBITMQ_URL);
    try {
      await (await admin.createChannel()).deleteQueue(listenerNames(resources.transport.options, 'deleted').queue);
    } finally {
      await admin.close();
    }
    const publisher = resources.publisher();
    await waitFor(async () => (await publisher.publish(message('reopen.a', 1)), deleted.received.length > 0), {
      message: 'a delivery from the declared-again queue',
      pollMs: 50,
    });
    await publisher.publish(message('reopen.b', 2));
    await waitFor(() => other.received.length === 1, { message: 'the other listener to receive on its first channel' });
    // One new connection: the publisher's. The subscriber kept its own.
    expect(proxy.accepted - connections).toBe(1);
  });
});
