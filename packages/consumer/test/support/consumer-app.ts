import type { AddressInfo } from 'node:net';
import { INestApplication, Module, ModuleMetadata, NestApplicationOptions } from '@nestjs/common';
import { AbstractHttpAdapter, NestFactory } from '@nestjs/core';
import { CONSUMER_ID_HEADER, MESSAGES_PATH } from '@mmmq/core';
import type { JsonResponse } from './broker-app';

export { freePort } from '@mmmq/test-support';

/** A real consumer application (a Nest app importing `MmmqConsumerModule`) listening on 127.0.0.1. */
export interface ConsumerApp {
  app: INestApplication;
  port: number;
  url: string;
  /** POSTs `body` to the delivery endpoint, as the broker would. */
  deliver(consumerId: string | undefined, body: unknown): Promise<JsonResponse>;
  close(): Promise<void>;
}

export interface ConsumerAppOptions extends NestApplicationOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Runs before the application initialises, as `main.ts` would (`app.useGlobalPipes(...)`). */
  configure?: (app: INestApplication) => void;
  /** Default: express. */
  httpAdapter?: AbstractHttpAdapter;
}

export async function startConsumer(metadata: ModuleMetadata, options: ConsumerAppOptions = {}): Promise<ConsumerApp> {
  const { port: wanted = 0, configure, httpAdapter, ...appOptions } = options;
  @Module(metadata)
  class ConsumerTestAppModule {}
  const settings = { logger: false as const, abortOnError: false, ...appOptions };
  const app = httpAdapter
    ? await NestFactory.create(ConsumerTestAppModule, httpAdapter, settings)
    : await NestFactory.create(ConsumerTestAppModule, settings);
  try {
    configure?.(app);
    await app.listen(wanted, '127.0.0.1');
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    port,
    url,
    async deliver(consumerId, body) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (consumerId !== undefined) headers[CONSUMER_ID_HEADER] = consumerId;
      const response = await fetch(url + MESSAGES_PATH, {
        method: 'POST',
        headers,
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
    },
    close: () => app.close(),
  };
}

/** A delivery body as the broker sends it. */
export function delivery(content: unknown, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'm-1',
    topic: 'order.created',
    content,
    headers: {},
    offset: 0,
    deliveryCount: 1,
    redelivered: false,
    publishedAt: 1_764_431_234_567,
    ...fields,
  };
}
