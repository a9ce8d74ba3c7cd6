import { waitFor } from '@mmmq/test-support';
import { connect } from 'amqplib';
import { listenerNames, RabbitMqTransportClosedError } from '../src';
import { SHUTDOWN_STEP_TIMEOUT_MS } from '../src/shutdown-step';
import { listener, RABBITMQ_URL, RecordingHandler, TestResources, proxiedResources } from './support/rabbitmq-test-transport';
import { TcpProxy } from './support/tcp-proxy';

async function consumersOn(queue: string): Promise<number> {
  const admin = await connect(RABBITMQ_URL);
  try {
    return (await (await admin.createChannel()).checkQueue(queue)).consumerCount;
  } finally {
    await admin.close();
  }
}

describe('RabbitMqSubscriber: shutdown', () => {
  let proxy: TcpProxy;
  let resources: TestResources;

  beforeEach(async () => {
    ({ proxy, resources } = await proxiedResources());
  });

  afterEach(async () => {
    await resources.dispose();
    await proxy.stop();
  });

  it('stops a subscribe still under way when stopReceiving() comes: it rejects and leaves no consumer on the queue', async () => {
    const subscriber = resources.subscriber();
    const subscribing = subscriber.subscribe(listener('late', 'late.*'), new RecordingHandler().handle);
    await subscriber.stopReceiving();
    await expect(subscribing).rejects.toBeInstanceOf(RabbitMqTransportClosedError);
    const queue = listenerNames(resources.transport.options, 'late').queue;
    await waitFor(async () => (await consumersOn(queue)) === 0, { message: `no consumer left on ${queue}` });
  });

  it('does not hang in stopReceiving() or close() on a half-open connection', async () => {
    const subscriber = resources.subscriber();
    await subscriber.subscribe(listener('frozen', 'frozen.*'), new RecordingHandler().handle);
    proxy.freeze();
    const startedAt = Date.now();
    await subscriber.stopReceiving();
    expect(Date.now() - startedAt).toBeLessThan(SHUTDOWN_STEP_TIMEOUT_MS + 1000);
    // Then the channel's close and the connection's close wait at most one step each.
    await subscriber.close();
    expect(Date.now() - startedAt).toBeLessThan(3 * SHUTDOWN_STEP_TIMEOUT_MS + 1000);
  }, 30_000);
});
