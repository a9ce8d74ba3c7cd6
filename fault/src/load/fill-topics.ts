import type { PublishHistory } from '../history/publish-history';
import type { Random } from '../random';
import { httpRequest } from './http-post';
import { messageJson } from './message-content';

const BATCH = 4;
const PARALLEL_TOPICS = 6;
const TIMEOUT_MS = 20_000;

/**
 * Publishes `perTopic` small messages to every topic in batches of a few (so that small segments rotate
 * often), and requires every one to be acknowledged: this builds the fixture that faults are applied to.
 */
export async function fillTopics(
  url: string,
  history: PublishHistory,
  topics: readonly string[],
  perTopic: number,
  random: Random,
): Promise<void> {
  const queue = [...topics];
  const worker = async () => {
    for (let topic = queue.shift(); topic !== undefined; topic = queue.shift()) {
      for (let sequence = 0; sequence < perTopic; sequence += BATCH) {
        const attempts = Array.from({ length: Math.min(BATCH, perTopic - sequence) }, (_, i) => {
          const id = `${topic}-${sequence + i}`;
          const content = Buffer.from(`{"id":"${id}","pad":"${'f'.repeat(random.int(40, 400))}"}`);
          return history.begin({ id, topic, content, route: 'http-batch', session: topic, sequence: sequence + i, cycle: 0 });
        });
        const body = `{"messages":[${attempts.map((a) => messageJson(topic, a.id, a.content)).join(',')}]}`;
        const answer = await httpRequest(`${url}/mmmq/messages/batch`, { body, timeoutMs: TIMEOUT_MS });
        if (answer.status !== 200) throw new Error(`Filling ${topic} failed: ${answer.status} ${answer.body.slice(0, 200)}`);
        const { messages } = JSON.parse(answer.body) as { messages: Array<{ offset: number }> };
        attempts.forEach((attempt, i) => history.ack(attempt, messages[i].offset));
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_TOPICS }, worker));
}

/** Publishes one message per topic and records it; resolves with how many were acknowledged. */
export async function publishOneEach(url: string, history: PublishHistory, topics: readonly string[], cycle: number): Promise<number> {
  let acked = 0;
  for (const topic of topics) {
    const id = `${topic}-after-${cycle}`;
    const content = Buffer.from(`{"id":"${id}","after":${cycle}}`);
    const attempt = history.begin({ id, topic, content, route: 'http', session: `${topic}-after`, sequence: cycle, cycle });
    try {
      const answer = await httpRequest(`${url}/mmmq/messages`, { body: messageJson(topic, id, content), timeoutMs: TIMEOUT_MS });
      if (answer.status === 200) {
        history.ack(attempt, (JSON.parse(answer.body) as { offset: number }).offset);
        acked++;
      } else history.nack(attempt, answer.status);
    } catch {
      history.unknown(attempt);
    }
  }
  return acked;
}
