import { BrokerApp } from '../http/broker-app.fixture';

/** Publishes each content to `topic` one after another and returns the offsets. */
export async function publishAll(broker: BrokerApp, topic: string, contents: unknown[]): Promise<number[]> {
  const offsets: number[] = [];
  for (const content of contents) {
    const response = await broker.post('/mmmq/messages', JSON.stringify({ topic, content }));
    if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
    offsets.push(response.body.offset);
  }
  return offsets;
}

/** Registers a push consumer through the dispatcher API. */
export async function addDispatcher(broker: BrokerApp, consumerId: string, url: string, pattern: string): Promise<void> {
  const response = await broker.request('POST', '/mmmq/dispatchers', { consumerId, host: url, pattern });
  if (response.status !== 201) throw new Error(`dispatcher not added: ${response.status} ${JSON.stringify(response.body)}`);
}

/** Retry quickly in tests that are not about backoff itself. */
export const FAST_BACKOFF = { backoff: { initialMs: 50, maxMs: 200 } };

export const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);
