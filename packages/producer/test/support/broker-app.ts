import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeEnvelope, MmmqBrokerModule, MmmqBrokerOptions, PublishStreamServer, TopicQueueContainer } from '@mmmq/broker';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/** A message as the real broker stored it. */
export interface StoredMessage {
  id: string | null;
  headers: Record<string, unknown>;
  /** The stored content bytes, as text. */
  content: string;
}

/** A real broker on a free port over a fresh temporary data directory. */
export interface BrokerApp {
  url: string;
  /** `mmmq://…` of its publish stream. */
  streamUrl: string;
  /** Messages stored in `topic`, in offset order. */
  stored(topic: string): Promise<StoredMessage[]>;
  close(): Promise<void>;
}

export async function startBroker(options: MmmqBrokerOptions = {}): Promise<BrokerApp> {
  const rootDir = await mkdtemp(join(tmpdir(), 'mmmq-producer-'));
  const app: INestApplication = await NestFactory.create(
    MmmqBrokerModule.forRoot({ stream: { port: 0 }, ...options, persistence: { rootDir } }),
    { bodyParser: false, logger: false },
  );
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const topics = app.get(TopicQueueContainer);
  return {
    url: `http://127.0.0.1:${port}`,
    streamUrl: `mmmq://127.0.0.1:${app.get(PublishStreamServer).address()?.port}`,
    async stored(topic) {
      const queue = topics.get(topic);
      const messages: StoredMessage[] = [];
      for (let offset = 0; queue !== undefined && offset < queue.tailOffset; offset++) {
        const payload = await queue.peek(offset);
        if (payload === null) throw new Error(`Nothing stored at ${topic}@${offset}`);
        const envelope = decodeEnvelope(payload);
        messages.push({ id: envelope.id, headers: envelope.headers, content: envelope.content.toString('utf8') });
      }
      return messages;
    },
    async close() {
      await app.close();
      await rm(rootDir, { recursive: true, force: true });
    },
  };
}
