import { Agent, request } from 'node:http';

/** One message the load sent, and what became of it. */
export interface SentMessage {
  seq: number;
  topic: string;
  client: number;
  /** Value of the shared event counter when the request was sent, and when its ACK arrived. */
  sentAt: number;
  ackedAt?: number;
  /** The offset the ACK named. */
  offset?: number;
}

export interface LoadPlan {
  url: string;
  messages: number;
  clients: number;
  /** Must need no JSON escaping. */
  topicOf(seq: number): string;
  /** The content's JSON text, sent as is. */
  contentOf(seq: number): string;
  /** Called after every ACK with the number of ACKs so far. */
  onAck(acked: number): void;
}

/**
 * Publishes `messages` messages from `clients` concurrent keep-alive connections, each client sending its next
 * message when the previous one was answered. Stops issuing once any request fails (the broker is gone) and
 * resolves with every message that was sent.
 */
export async function publishLoad(plan: LoadPlan): Promise<SentMessage[]> {
  const sent: SentMessage[] = [];
  let next = 0;
  let events = 0;
  let acked = 0;
  let brokerGone = false;
  const client = async (id: number) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      while (!brokerGone && next < plan.messages) {
        const seq = next++;
        const message: SentMessage = { seq, topic: plan.topicOf(seq), client: id, sentAt: events++ };
        sent.push(message);
        const body = `{"topic":"${message.topic}","id":"m-${seq}","content":${plan.contentOf(seq)}}`;
        const answer = await post(agent, `${plan.url}/mmmq/messages`, body).catch(() => undefined);
        if (answer?.status !== 200) {
          brokerGone = true;
          continue;
        }
        message.ackedAt = events++;
        message.offset = (JSON.parse(answer.body) as { offset: number }).offset;
        plan.onAck(++acked);
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: plan.clients }, (_, id) => client(id)));
  return sent;
}

function post(agent: Agent, url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
