import { waitFor } from '@mmmq/test-support';
import { ACK, listener, message, RecordingHandler, TestResources, testTransport } from './support/rabbitmq-test-transport';

describe('RabbitMqTransport: deliveries the consumer refuses (its queue full, ackMode none)', () => {
  let resources: TestResources;

  beforeEach(() => {
    resources = new TestResources(testTransport({ reconnect: { initialMs: 100, maxMs: 400 } }));
  });

  afterEach(() => resources.dispose());

  it('gives them back with backoff instead of at once, so they do not spin through the x-delivery-limit', async () => {
    let refusing = true;
    const handler = new RecordingHandler(() => {
      if (refusing) throw new Error('queue full');
      return ACK;
    });
    await resources.subscriber().subscribe(listener('full', 'full.*'), handler.handle);
    const sent = message('full.a', 1);
    await resources.publisher().publish(sent);
    await waitFor(() => handler.received.length >= 3, { message: 'three refused deliveries' });
    const startedAt = Date.now();
    await waitFor(() => Date.now() - startedAt >= 1000 || handler.received.length >= 20, { message: 'a second to pass', pollMs: 50 });
    // Backoff of 100, 200, 400, 400 … ms: a handful per second, where an immediate requeue makes hundreds.
    expect(handler.received.length).toBeLessThan(10);
    const refused = handler.received.length;
    refusing = false;
    await waitFor(() => handler.received.length > refused, {
      message: 'the message to be taken once the consumer has room',
    });
  });
});
