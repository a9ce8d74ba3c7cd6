import { InvalidMessageError } from '@mmmq/core';
import { waitFor } from '@mmmq/test-support';
import { listener, message, RecordingHandler, TestResources, testTransport } from './support/rabbitmq-test-transport';

describe('RabbitMqPublisher: ids and header names RabbitMQ cannot carry (over 255 bytes)', () => {
  let resources: TestResources;

  beforeEach(() => {
    resources = new TestResources(testTransport());
  });

  afterEach(() => resources.dispose());

  it('sends a 255-byte id and header name, and refuses longer ones (UTF-8 bytes) with InvalidMessageError, not retryably', async () => {
    const handler = new RecordingHandler();
    await resources.subscriber().subscribe(listener('long', 'long.*'), handler.handle);
    const publisher = resources.publisher();
    const fits = message('long.a', 1, { id: 'a'.repeat(255), headers: { ['h'.repeat(255)]: 'v' } });
    await publisher.publish(fits);
    await waitFor(() => handler.received.length === 1, { message: 'the 255-byte message to be consumed' });
    expect(handler.received[0]).toMatchObject({ id: fits.id, headers: { ['h'.repeat(255)]: 'v' } });

    await expect(publisher.publish(message('long.a', 2, { id: 'a'.repeat(256) }))).rejects.toThrow(
      new InvalidMessageError(`Message id ${JSON.stringify('a'.repeat(40))}… is 256 bytes in UTF-8; RabbitMQ takes at most 255`),
    );
    // 128 characters, 256 bytes.
    await expect(publisher.publish(message('long.a', 3, { id: 'é'.repeat(128) }))).rejects.toBeInstanceOf(InvalidMessageError);
    await expect(publisher.publishBatch([message('long.a', 4, { headers: { ['h'.repeat(256)]: 'v' } })])).rejects.toThrow(
      /^Message header name "h{40}"… is 256 bytes in UTF-8/,
    );
  });
});
