import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MmmqBrokerModule, MmmqBrokerOptions } from '@mmmq/broker';
import { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { waitFor } from './wait-for';

export interface JsonResponse {
  status: number;
  headers: Headers;
  // Tests read whatever JSON the broker answers.
  body: any;
}

/** A real broker on a free port over a fresh temporary directory, retrying quickly so tests stay short. */
export interface BrokerApp {
  app: INestApplication;
  url: string;
  request(method: string, path: string, body?: unknown): Promise<JsonResponse>;
  /** Publishes and fails the test unless the broker acknowledged. */
  publish(topic: string, content: unknown): Promise<{ id: string; offset: number }>;
  deadLetters(consumerId: string): Promise<any[]>;
  /** The broker's subscription of `consumerId` to `topic`, as listed by `GET /mmmq/subscriptions`. */
  subscription(consumerId: string, topic: string): Promise<any>;
  /** Resolves once `consumerId`'s subscription to `topic` has acknowledged or dead-lettered everything. */
  caughtUp(consumerId: string, topic: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Quick retries unless `delivery` says otherwise; `logger` receives what the broker logs (default: nothing); `port`
 * (default: any free one) for a broker whose URL a consumer knows before it starts.
 */
export async function startBroker(options: MmmqBrokerOptions & { logger?: LoggerService; port?: number } = {}): Promise<BrokerApp> {
  const { logger, port: wantedPort = 0, ...brokerOptions } = options;
  const rootDir = await mkdtemp(join(tmpdir(), 'mmmq-consumer-e2e-'));
  const module = MmmqBrokerModule.forRoot({
    persistence: { rootDir },
    delivery: { backoff: { initialMs: 50, maxMs: 200 } },
    ...brokerOptions,
  });
  const app = await NestFactory.create(module, { bodyParser: false, logger: logger ?? false });
  await app.listen(wantedPort, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  // With tokens configured, the test itself acts as the first admin token.
  const admin = options.auth?.tokens?.find((token) => token.roles.includes('admin'))?.token;
  const request = async (method: string, path: string, body?: unknown): Promise<JsonResponse> => {
    const response = await fetch(url + path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(admin === undefined ? {} : { authorization: `Bearer ${admin}` }) },
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };
  const subscription = async (consumerId: string, topic: string) => {
    const { body } = await request('GET', '/mmmq/subscriptions');
    const list: any[] = Array.isArray(body) ? body : body.subscriptions;
    return list.find((entry) => entry.consumerId === consumerId && entry.topic === topic);
  };

  return {
    app,
    url,
    request,
    subscription,
    async publish(topic, content) {
      const response = await request('POST', '/mmmq/messages', { topic, content });
      if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    },
    async deadLetters(consumerId) {
      const response = await request('GET', `/mmmq/dead-letters/${consumerId}`);
      return response.status === 200 ? response.body.deadLetters : [];
    },
    async caughtUp(consumerId, topic) {
      await waitFor(async () => (await subscription(consumerId, topic))?.lag === 0, `${consumerId} to catch up on ${topic}`);
    },
    async close() {
      await app.close();
      await rm(rootDir, { recursive: true, force: true });
    },
  };
}
