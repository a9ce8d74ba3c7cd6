import type { BrokerRunner } from './broker-runner';
import { waitFor } from '@mmmq/test-support';
import { FAULT_POLL_MS } from './poll-interval';

interface SubscriptionView {
  topic: string;
  consumerId: string;
  lag: number;
}

/**
 * Waits until `consumerId` has a subscription to every one of `topics` and none lags behind its topic's tail
 * (a negative lag — a checkpoint past the tail — is as far as that subscription will get).
 */
export function drained(runner: BrokerRunner, consumerId: string, topics: Iterable<string>, timeoutMs: number): Promise<void> {
  const expected = new Set(topics);
  return waitFor(
    async () => {
      const subscriptions = (await runner.get<SubscriptionView[]>('/mmmq/subscriptions')).filter((s) => s.consumerId === consumerId);
      const subscribed = new Set(subscriptions.map((s) => s.topic));
      return [...expected].every((topic) => subscribed.has(topic)) && subscriptions.every((s) => s.lag <= 0);
    },
    {
      deadlineMs: timeoutMs,
      message: `${consumerId} to be subscribed to ${expected.size} topics and to have received everything in them`,
      pollMs: FAULT_POLL_MS,
    },
  );
}
