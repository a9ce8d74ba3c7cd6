import { MmmqClient } from '@mmmq/microservices';
import type { Producer } from '@mmmq/producer';
import { lastValueFrom } from 'rxjs';
import type { BenchContent } from '../payload';
import { freePort } from '../services';
import { startRpcReplier } from './rpc-replier';
import type { RequestReplyRig, TopicPlan } from './system';

/**
 * MMMQ's request-reply as a deployment runs it: `MmmqClient.send()` in the bench process (its producer over HTTP,
 * replies collected from the broker's relay), the standalone broker, and a replier microservice on `MmmqServer`
 * (push) in a process of its own.
 */
export async function mmmqRequestReply(
  broker: string,
  brokerPids: () => number[],
  plan: TopicPlan,
  concurrency: number,
): Promise<RequestReplyRig> {
  const pattern = plan.topics[0];
  const replier = await startRpcReplier({ transport: 'mmmq', pattern, concurrency, url: broker, app: plan.prefix, port: await freePort() });
  const client = new MmmqClient({ broker });
  return {
    request: (content) => lastValueFrom(client.send<BenchContent>(pattern, content)),
    serverPids: () => [...brokerPids(), ...(replier.pid ? [replier.pid] : [])],
    note: () => {
      const { late } = client.unwrap<Producer>().replyStats();
      return late > 0 ? `${late} late replies` : undefined;
    },
    close: async () => {
      await client.close();
      await replier.stop();
    },
  };
}
