import http from 'node:http';
import type { BenchContent } from '../payload';
import { log } from '../services';
import { httpRequest } from './mmmq-http';
import type { ConsumeHandle, OnMessage, PullOptions } from './system';

/** The `member` the bench's puller names itself in fetch (who holds the leases). */
export const PULL_MEMBER = 'bench-puller';

interface PulledMessage {
  content: BenchContent;
  lease: string;
}

/**
 * One pull consumer over MMMQ's pull API (docs/http-api.md § Pull API), plain HTTP and JSON:
 * `POST /mmmq/consumers/{id}/fetch` `{"max": batch, "waitMs", "member"}` (long poll), every message handled, then one `POST …/ack`
 * `{"leases": [...]}` for the batch, and the next fetch at once. At most one ack is on its way: before sending
 * the next one the puller waits for the previous answer (each answers once durable). Fetches and acks go over
 * their own keep-alive connection each. Throws at start when the broker has no pull API.
 */
export async function startPull(port: number, consumerId: string, options: PullOptions, onMessage: OnMessage): Promise<ConsumeHandle> {
  const base = `/mmmq/consumers/${encodeURIComponent(consumerId)}`;
  const fetchAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ackAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let open = true;
  let lost = 0;
  let failure: string | undefined;
  let pendingAck: Promise<void> = Promise.resolve();

  const post = async (path: string, body: unknown, agent: http.Agent): Promise<unknown> => {
    const answer = await httpRequest(port, 'POST', `${base}${path}`, { body: JSON.stringify(body), agent });
    if (answer.status !== 200) throw new Error(`POST ${base}${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    return JSON.parse(answer.text);
  };
  const fetch = async (waitMs: number) =>
    ((await post('/fetch', { max: options.batch, waitMs, member: PULL_MEMBER }, fetchAgent)) as { messages: PulledMessage[] }).messages;
  const ack = async (leases: string[]) => {
    const answer = (await post('/ack', { leases }, ackAgent)) as { lost?: unknown[] };
    lost += answer.lost?.length ?? 0;
  };
  const handle = async (messages: PulledMessage[]) => {
    if (messages.length === 0) return;
    const leases: string[] = new Array(messages.length);
    for (let i = 0; i < messages.length; i++) {
      onMessage(0, messages[i].content);
      leases[i] = messages[i].lease;
    }
    await pendingAck;
    // Never left rejected: a failed ack ends the loop and is told in the round's note.
    pendingAck = ack(leases).catch((error: Error) => {
      failure ??= error.message;
      open = false;
    });
  };

  try {
    // No wait: a broker without the pull API (404) fails the round now instead of at the round timeout.
    await handle(await fetch(0));
  } catch (error) {
    fetchAgent.destroy();
    ackAgent.destroy();
    throw error;
  }
  const loop = (async () => {
    try {
      while (open) await handle(await fetch(options.waitMs));
    } catch (error) {
      failure ??= (error as Error).message;
      log(`MMMQ pull: ${failure}`);
    }
    await pendingAck;
  })();
  return {
    close: async () => {
      open = false;
      await loop; // at most one long poll (waitMs)
      fetchAgent.destroy();
      ackAgent.destroy();
    },
    note: () =>
      [lost ? `${lost} acknowledgements answered "lost"` : '', failure ? `the pull loop stopped: ${failure}` : '']
        .filter(Boolean)
        .join('; ') || undefined,
  };
}
