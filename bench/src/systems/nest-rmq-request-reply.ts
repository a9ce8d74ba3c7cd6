import { ClientRMQ } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { BenchContent } from '../payload';
import { startRpcReplier } from './rpc-replier';
import type { RequestReplyRig, TopicPlan } from './system';

/**
 * Nest's own RMQ transport (`@nestjs/microservices` `ClientRMQ` → `Transport.RMQ` server, over amqplib and
 * amqp-connection-manager): the client in the bench process, the replier in a process of its own, on the plan's
 * one queue. `rmq`: options beyond Nest's defaults, given to both sides.
 */
export async function nestRmqRequestReply(
  url: string,
  brokerPids: () => number[],
  plan: TopicPlan,
  concurrency: number,
  rmq: Record<string, unknown>,
): Promise<RequestReplyRig & { queue: string }> {
  const pattern = plan.topics[0];
  const queue = `${plan.prefix}.rpc`;
  const replier = await startRpcReplier({ transport: 'rmq', pattern, concurrency, url, queue, rmq });
  const client = new ClientRMQ({ urls: [url], queue, ...rmq });
  await client.connect();
  return {
    queue,
    request: (content) => lastValueFrom(client.send<BenchContent>(pattern, content)),
    serverPids: () => [...brokerPids(), ...(replier.pid ? [replier.pid] : [])],
    close: async () => {
      await client.close();
      await replier.stop();
    },
  };
}
