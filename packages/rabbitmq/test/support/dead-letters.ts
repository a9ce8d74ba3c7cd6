import { connect, type GetMessage } from 'amqplib';
import { RABBITMQ_URL } from './rabbitmq-test-transport';

/** Takes every message now in `queue` (basic.get, no ack), for assertions on dead letters. */
export async function drainQueue(queue: string): Promise<GetMessage[]> {
  const model = await connect(RABBITMQ_URL);
  try {
    const channel = await model.createChannel();
    const messages: GetMessage[] = [];
    for (let next = await channel.get(queue, { noAck: true }); next !== false; next = await channel.get(queue, { noAck: true })) {
      messages.push(next);
    }
    return messages;
  } finally {
    await model.close();
  }
}
