import { connect } from 'amqplib';
import { message, RABBITMQ_URL, TestResources, testTransport } from './support/rabbitmq-test-transport';

describe('RabbitMqPublisher: an exchange deleted while connected', () => {
  let resources: TestResources;

  beforeEach(() => {
    resources = new TestResources(testTransport());
  });

  afterEach(() => resources.dispose());

  it('is declared again by the next channel: a retry is confirmed without waiting for a reconnection', async () => {
    const publisher = resources.publisher();
    await publisher.publish(message('gone.a', 1));
    const admin = await connect(RABBITMQ_URL);
    const channel = await admin.createChannel();
    await channel.deleteExchange(resources.transport.options.exchange);

    // As the producer does: the same message again. The first try may fail (404 closes its channel).
    const sent = message('gone.a', 2);
    const failures: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await publisher.publish(sent);
        break;
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    expect(failures.length).toBeLessThan(3);
    await expect(channel.checkExchange(resources.transport.options.exchange)).resolves.toBeDefined();
    await admin.close();
  });
});
