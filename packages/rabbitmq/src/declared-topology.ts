import { connect } from 'amqplib';

/**
 * Every exchange and queue this transport declared, so tests (and tools that create throw-away topologies) can
 * remove them again with `RabbitMqTransport.deleteDeclared()`.
 */
export class DeclaredTopology {
  readonly exchanges = new Set<string>();
  readonly queues = new Set<string>();

  /** Deletes everything recorded here, ignoring what is gone already. */
  async deleteAll(url: string): Promise<void> {
    const model = await connect(url);
    try {
      for (const queue of this.queues) await withChannel(model, (channel) => channel.deleteQueue(queue));
      for (const exchange of this.exchanges) await withChannel(model, (channel) => channel.deleteExchange(exchange));
      this.queues.clear();
      this.exchanges.clear();
    } finally {
      await model.close().catch(() => undefined);
    }
  }
}

// A failed delete closes its channel, so each gets its own.
async function withChannel(
  model: Awaited<ReturnType<typeof connect>>,
  work: (channel: Awaited<ReturnType<typeof model.createChannel>>) => Promise<unknown>,
): Promise<void> {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  await work(channel).catch(() => undefined);
  await channel.close().catch(() => undefined);
}
