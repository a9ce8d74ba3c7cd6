import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { MmmqBrokerModule, MmmqBrokerOptions, registerRawBodyParser } from '../../src';
import { TopicQueueContainer } from '../../src/storage';

/** The HTTP platforms the broker runs on; both are tested. */
export type HttpPlatform = 'express' | 'fastify';
export const HTTP_PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

/** A real broker on a free port over a fresh temporary data directory. */
export interface BrokerApp {
  app: INestApplication;
  url: string;
  rootDir: string;
  topics: TopicQueueContainer;
  /** Sends `body` (as is) with `method` and returns the status, headers and parsed JSON body (null if empty). */
  request(method: string, path: string, body?: unknown): Promise<JsonResponse>;
  /** POSTs `body` (sent as is) and returns the status, headers and parsed JSON body. */
  post(path: string, body: string | Buffer, headers?: Record<string, string>): Promise<JsonResponse>;
  close(): Promise<void>;
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  // Tests read whatever JSON came back (objects, arrays, null).
  body: any;
}

export async function startBroker(
  options: MmmqBrokerOptions = {},
  appOptions: NestApplicationOptions = { bodyParser: false },
  platform: HttpPlatform = 'express',
  /** Interface to listen on; `url` is on 127.0.0.1 either way. */
  host = '127.0.0.1',
): Promise<BrokerApp> {
  const given = options.persistence?.rootDir;
  const rootDir = given ?? (await mkdtemp(join(tmpdir(), 'mmmq-e2e-')));
  const module = MmmqBrokerModule.forRoot({ ...options, persistence: { ...options.persistence, rootDir } });
  let app: INestApplication;
  if (platform === 'fastify') {
    app = await NestFactory.create(module, new FastifyAdapter(), { logger: false, ...appOptions });
    registerRawBodyParser(app);
  } else {
    app = await NestFactory.create(module, { logger: false, ...appOptions });
  }
  await app.listen(0, host);
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    url,
    rootDir,
    topics: app.get(TopicQueueContainer),
    async post(path, body, headers = { 'content-type': 'application/json' }) {
      const response = await fetch(url + path, { method: 'POST', body, headers });
      const json: unknown = await response.json();
      return { status: response.status, headers: response.headers, body: json };
    },
    async request(method, path, body) {
      const response = await fetch(url + path, {
        method,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
    },
    async close() {
      await app.close();
      // A directory the caller passed in outlives this broker, so a test can restart on the same data.
      if (!given) await rm(rootDir, { recursive: true, force: true });
    },
  };
}
