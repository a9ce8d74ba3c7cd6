import { EventEmitter } from 'node:events';
import type { ChannelModel, Options } from 'amqplib';
import { PublishNotConfirmedError, RabbitMqTransport } from '../src';
import { ConnectionManager } from '../src/connection-manager';
import { message } from './support/rabbitmq-test-transport';

type Confirm = (error: Error | null) => void;

/** A confirm channel (unit test fake) that answers each publish as scripted: returned then not confirmed, or confirmed. */
class ScriptedChannel extends EventEmitter {
  constructor(private readonly script: Array<'returned-then-closed' | 'confirmed'>) {
    super();
  }

  async assertExchange(exchange: string): Promise<{ exchange: string }> {
    return { exchange };
  }

  publish(_exchange: string, _key: string, _content: Buffer, options: Options.Publish, confirm: Confirm): boolean {
    const step = this.script.shift();
    if (step === 'returned-then-closed') {
      this.emit('return', { properties: { messageId: options.messageId } });
      confirm(new Error('channel closed before the confirm'));
    } else confirm(null);
    return true;
  }
}

describe('RabbitMqPublisher: returned messages (unit, fake channel)', () => {
  afterEach(() => jest.restoreAllMocks());

  it('forgets a return whose confirm failed, so the retry of the same id is reported as sent', async () => {
    const channel = new ScriptedChannel(['returned-then-closed', 'confirmed']);
    const model = { createConfirmChannel: async () => channel } as unknown as ChannelModel;
    jest.spyOn(ConnectionManager.prototype, 'connection').mockResolvedValue(model);
    const publisher = new RabbitMqTransport({ url: 'amqp://127.0.0.1:1', rejectUnroutable: true }).createPublisher();
    const sent = message('order.created', 1);
    await expect(publisher.publish(sent)).rejects.toBeInstanceOf(PublishNotConfirmedError);
    await expect(publisher.publish(sent)).resolves.toMatchObject({ id: sent.id, offset: -1 });
    await publisher.close();
  });
});
