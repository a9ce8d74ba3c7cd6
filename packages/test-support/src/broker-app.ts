import type { AddressInfo } from 'node:net';
import { MmmqBrokerModule, MmmqBrokerOptions, registerRawBodyParser } from '@mmmq/broker';
import { DynamicModule, INestApplication, LoggerService, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
// Internals a test inspects, by path: the package's public entry need not export them.
import { decodeEnvelope } from '../../broker/src/format/message-envelope';
import { TopicQueueContainer } from '../../broker/src/storage';
import { PublishStreamServer } from '../../broker/src/stream/publish-stream.server';
import { makeTempDir, removeTempDir } from './temp-dir';
import { waitFor } from './wait-for';

/** The HTTP platforms the broker runs on; both are tested. */
export type HttpPlatform = 'express' | 'fastify';
export const HTTP_PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

/** Retry quickly, for tests that are not about backoff itself. */
export const FAST_BACKOFF = { backoff: { initialMs: 50, maxMs: 200 } };

export interface JsonResponse {
  status: number;
  headers: Headers;
  // Tests read whatever JSON came back (objects, arrays, null).
  body: any;
}

/** A message as the broker stored it. */
export interface StoredMessage {
  id: string | null;
  headers: Record<string, unknown>;
  /** The stored content bytes, as text. */
  content: string;
  /** Present only when the message has one (docs/destinations.md#expiry). */
  expiresAt?: number;
  /** Present only when not the default 4. */
  priority?: number;
  /** Epoch ms; present only for a scheduled message (docs/delivery.md#scheduled-messages). */
  dueAt?: number;
}

/** How the Nest application around the broker module is made. */
export interface BrokerLaunchOptions {
  /** Default `{ bodyParser: false }`, as the README tells users. */
  app?: NestApplicationOptions;
  platform?: HttpPlatform;
  /** Interface to listen on; `url` is on 127.0.0.1 either way. */
  host?: string;
  /** Default 0, any free port; a fixed one for a broker whose URL a client knows before it starts. */
  port?: number;
  /** Where the broker logs; by default Nest's logger, which the quiet test logger buffers per test. */
  logger?: LoggerService | false;
  /** Providers to replace in the broker module (say a fake DNS resolver), as `overrideProvider(token).useValue(value)`. */
  overrides?: Array<{ token: unknown; value: unknown }>;
  /** Send this bearer token with `request`, `publish` and the helpers built on them (not with `post`). */
  token?: string;
}

/** A real broker (`MmmqBrokerModule` in a Nest app) on a free port over a fresh temporary data directory. */
export interface BrokerApp {
  app: INestApplication;
  url: string;
  /** `mmmq://…` of its publish stream; throws unless `stream.port` was set. */
  readonly streamUrl: string;
  rootDir: string;
  topics: TopicQueueContainer;
  /** Sends `body` (JSON-encoded unless a string) with `method`; returns the status, headers and parsed body (null if empty). */
  request(method: string, path: string, body?: unknown): Promise<JsonResponse>;
  /** POSTs `body` (sent as is) and returns the status, headers and parsed JSON body. */
  post(path: string, body: string | Buffer, headers?: Record<string, string>): Promise<JsonResponse>;
  /** Publishes and fails the test unless the broker acknowledged. */
  publish(topic: string, content: unknown): Promise<{ id: string; offset: number }>;
  /** Publishes each content to `topic` one after another; returns the offsets. */
  publishAll(topic: string, contents: unknown[]): Promise<number[]>;
  /** Registers a push dispatcher through the HTTP API; fails the test unless it was created. */
  addDispatcher(consumerId: string, url: string, pattern: string, fields?: Record<string, unknown>): Promise<void>;
  /** The dead letters of `consumerId` (first page), or [] when there are none. */
  deadLetters(consumerId: string): Promise<any[]>;
  /** The subscription of `consumerId` to `topic`, as listed by `GET /mmmq/subscriptions`. */
  subscription(consumerId: string, topic: string): Promise<any>;
  /** Resolves once `consumerId`'s subscription to `topic` has acknowledged or dead-lettered everything. */
  caughtUp(consumerId: string, topic: string): Promise<void>;
  /** Messages stored in `topic`, in offset order. */
  stored(topic: string): Promise<StoredMessage[]>;
  /** Closes the application; removes the data directory unless the caller chose it. Idempotent. */
  close(): Promise<void>;
}

export async function startBroker(options: MmmqBrokerOptions = {}, launch: BrokerLaunchOptions = {}): Promise<BrokerApp> {
  const { platform = 'express', host = '127.0.0.1', port: wantedPort = 0, token } = launch;
  const given = options.persistence?.rootDir;
  const rootDir = given ?? (await makeTempDir('mmmq-broker-'));
  const appOptions: NestApplicationOptions = {
    bodyParser: false,
    ...(launch.logger === undefined ? {} : { logger: launch.logger }),
    ...launch.app,
  };
  let started: INestApplication | undefined;
  try {
    const module = MmmqBrokerModule.forRoot({ ...options, persistence: { ...options.persistence, rootDir } });
    started = await createApplication(module, platform, appOptions, launch.overrides ?? []);
    await started.listen(wantedPort, host);
  } catch (error) {
    // Options the broker refuses are tested too: leave nothing behind.
    await started?.close().catch(() => undefined);
    if (!given) await removeTempDir(rootDir);
    throw error;
  }
  const app = started;
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const topics = app.get(TopicQueueContainer);
  const streamPort = options.stream?.port === undefined ? undefined : app.get(PublishStreamServer).address()?.port;
  const authorization: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };

  const request = async (method: string, path: string, body?: unknown): Promise<JsonResponse> => {
    const response = await fetch(url + path, {
      method,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...authorization },
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };
  const publish = async (topic: string, content: unknown) => {
    const response = await request('POST', '/mmmq/messages', { topic, content });
    if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as { id: string; offset: number };
  };
  const subscription = async (consumerId: string, topic: string) => {
    const { body } = await request('GET', '/mmmq/subscriptions');
    const list: any[] = Array.isArray(body) ? body : body.subscriptions;
    return list.find((entry) => entry.consumerId === consumerId && entry.topic === topic);
  };
  let closed: Promise<void> | undefined;

  return {
    app,
    url,
    get streamUrl() {
      if (streamPort === undefined) throw new Error('The publish stream is off: start the broker with stream: { port: 0 }');
      return `mmmq://127.0.0.1:${streamPort}`;
    },
    rootDir,
    topics,
    request,
    publish,
    subscription,
    async post(path, body, headers = { 'content-type': 'application/json' }) {
      const response = await fetch(url + path, { method: 'POST', body, headers });
      const json: unknown = await response.json();
      return { status: response.status, headers: response.headers, body: json };
    },
    async publishAll(topic, contents) {
      const offsets: number[] = [];
      for (const content of contents) offsets.push((await publish(topic, content)).offset);
      return offsets;
    },
    async addDispatcher(consumerId, host, pattern, fields = {}) {
      const response = await request('POST', '/mmmq/dispatchers', { consumerId, host, pattern, ...fields });
      if (response.status !== 201) throw new Error(`dispatcher not added: ${response.status} ${JSON.stringify(response.body)}`);
    },
    async deadLetters(consumerId) {
      const response = await request('GET', `/mmmq/dead-letters/${consumerId}`);
      return response.status === 200 ? response.body.deadLetters : [];
    },
    async caughtUp(consumerId, topic) {
      await waitFor(async () => (await subscription(consumerId, topic))?.lag === 0, { message: `${consumerId} to catch up on ${topic}` });
    },
    async stored(topic) {
      const queue = topics.get(topic);
      const messages: StoredMessage[] = [];
      for (let offset = 0; queue !== undefined && offset < queue.tailOffset; offset++) {
        const payload = await queue.peek(offset);
        if (payload === null) throw new Error(`Nothing stored at ${topic}@${offset}`);
        const envelope = decodeEnvelope(payload);
        const { expiresAt, priority, dueAt } = envelope;
        messages.push({
          id: envelope.id,
          headers: envelope.headers,
          content: envelope.content.toString('utf8'),
          ...(expiresAt === undefined ? {} : { expiresAt }),
          ...(priority === undefined ? {} : { priority }),
          ...(dueAt === undefined ? {} : { dueAt }),
        });
      }
      return messages;
    },
    close() {
      closed ??= (async () => {
        await app.close();
        // A directory the caller passed in outlives this broker, so a test can restart on the same data.
        if (!given) await removeTempDir(rootDir);
      })();
      return closed;
    },
  };
}

async function createApplication(
  module: DynamicModule,
  platform: HttpPlatform,
  options: NestApplicationOptions,
  overrides: Array<{ token: unknown; value: unknown }>,
): Promise<INestApplication> {
  // Loaded on demand: most tests never run on fastify.
  const adapter = platform === 'fastify' ? new (await import('@nestjs/platform-fastify')).FastifyAdapter() : undefined;
  let app: INestApplication;
  if (overrides.length === 0) {
    app = adapter ? await NestFactory.create(module, adapter, options) : await NestFactory.create(module, options);
  } else {
    let builder = Test.createTestingModule({ imports: [module] });
    for (const { token, value } of overrides) builder = builder.overrideProvider(token).useValue(value);
    if (options.logger !== undefined) builder = builder.setLogger(options.logger === false ? SILENT : (options.logger as LoggerService));
    const moduleRef = await builder.compile();
    app = adapter ? moduleRef.createNestApplication(adapter, options) : moduleRef.createNestApplication(options);
  }
  if (platform === 'fastify') registerRawBodyParser(app);
  return app;
}

const SILENT: LoggerService = { log() {}, warn() {}, error() {} };
