import type { ConfirmChannel, Options } from 'amqplib';
import { PublishNotConfirmedError } from './errors/publish-not-confirmed.error';

/** Publishes on a confirm channel and resolves on RabbitMQ's confirm; rejects on a nack, a closed channel or after `timeoutMs`. */
export function publishConfirmed(
  channel: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  options: Options.Publish,
  timeoutMs: number,
): Promise<void> {
  const target = `${exchange || '(default exchange)'} / ${routingKey}`;
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new PublishNotConfirmedError(`RabbitMQ did not confirm a publish to ${target} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      channel.publish(exchange, routingKey, content, options, (error: unknown) => {
        clearTimeout(timer);
        if (error)
          reject(
            new PublishNotConfirmedError(`RabbitMQ did not confirm a publish to ${target}`, {
              cause: error,
            }),
          );
        else resolve();
      });
    } catch (error) {
      clearTimeout(timer);
      reject(new PublishNotConfirmedError(`Publishing to ${target} failed: ${(error as Error).message}`, { cause: error }));
    }
  });
}
