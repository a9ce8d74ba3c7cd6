import http from 'node:http';
import type { DeliveryMode } from '@mmmq/producer';
import type { BenchContent } from '../payload';
import { httpRequest } from './mmmq-http';
import type { SequentialPublishers } from './system';

/**
 * Plain HTTP publishers, as most services call the broker: one keep-alive connection each (an `http.Agent`
 * with one socket), one `POST /mmmq/messages` per message with the JSON body the HTTP API describes, and
 * the next request only after the previous answer. No client library, no batching, no pipelining.
 */
export class HttpPublishers implements SequentialPublishers {
  private readonly agents: http.Agent[];
  private readonly prefix: string;

  constructor(
    private readonly port: number,
    topic: string,
    count: number,
    deliveryMode?: DeliveryMode,
  ) {
    this.agents = Array.from({ length: count }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    const mode = deliveryMode === undefined ? '' : `"deliveryMode":"${deliveryMode}",`;
    this.prefix = `{"topic":${JSON.stringify(topic)},${mode}"content":`;
  }

  async publish(c: number, content: BenchContent): Promise<void> {
    const body = `${this.prefix}${JSON.stringify(content)}}`;
    const answer = await httpRequest(this.port, 'POST', '/mmmq/messages', { body, agent: this.agents[c] });
    if (answer.status !== 200) throw new Error(`POST /mmmq/messages answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  }

  async close(): Promise<void> {
    for (const agent of this.agents) agent.destroy();
  }
}
