import { waitFor } from '@mmmq/test-support';
import { PublishAbandonedError } from '../src';
import { listener, message, RecordingHandler, TestResources, proxiedResources } from './support/rabbitmq-test-transport';
import { TcpProxy } from './support/tcp-proxy';

describe('RabbitMqPublisher: a publish the caller gave up on', () => {
  let proxy: TcpProxy;
  let resources: TestResources;

  beforeEach(async () => {
    ({ proxy, resources } = await proxiedResources({ confirmTimeoutMs: 5000 }));
  });

  afterEach(async () => {
    await resources.dispose();
    await proxy.stop();
  });

  it('is never sent once its signal aborted while RabbitMQ was unreachable, and rejects with PublishAbandonedError', async () => {
    const handler = new RecordingHandler();
    await resources.subscriber().subscribe(listener('catcher', 'abort.*'), handler.handle);
    const publisher = resources.publisher();
    proxy.refuse = true;
    const abandoned = message('abort.a', 'given up');
    const failure = publisher.publish(abandoned, { signal: AbortSignal.timeout(300) });
    await expect(failure).rejects.toBeInstanceOf(PublishAbandonedError);

    // RabbitMQ comes back: a later publish on the same publisher is confirmed, the abandoned one never arrives.
    proxy.refuse = false;
    const probe = message('abort.a', 'probe');
    await publisher.publish(probe);
    await waitFor(() => handler.received.length > 0, { message: 'the probe to be consumed' });
    expect(handler.ids()).toEqual([probe.id]);
  });

  it('is not sent when its signal aborted already', async () => {
    const publisher = resources.publisher();
    const controller = new AbortController();
    controller.abort();
    await expect(publisher.publishBatch([message('abort.b', 1)], { signal: controller.signal })).rejects.toBeInstanceOf(
      PublishAbandonedError,
    );
  });
});
