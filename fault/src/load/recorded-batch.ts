import type { Attempt, PublishHistory } from '../history/publish-history';
import { httpRequest } from './http-post';
import { messageJson } from './message-content';

/**
 * Publishes `attempts` (begun in `history`) as one `POST /mmmq/messages/batch` and records the outcome of each: acked
 * with its offset, NACKed with the status, or unknown when no answer came. True when the batch was acknowledged.
 */
export async function publishRecordedBatch(
  url: string,
  history: PublishHistory,
  attempts: readonly Attempt[],
  timeoutMs: number,
): Promise<boolean> {
  const body = `{"messages":[${attempts.map((attempt) => messageJson(attempt.topic, attempt.id, attempt.content)).join(',')}]}`;
  try {
    const answer = await httpRequest(`${url}/mmmq/messages/batch`, { body, timeoutMs });
    if (answer.status !== 200) {
      for (const attempt of attempts) history.nack(attempt, answer.status);
      return false;
    }
    const { messages } = JSON.parse(answer.body) as { messages: Array<{ offset: number }> };
    attempts.forEach((attempt, i) => history.ack(attempt, messages[i].offset));
    return true;
  } catch {
    for (const attempt of attempts) history.unknown(attempt);
    return false;
  }
}
