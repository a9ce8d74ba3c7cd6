import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MmmqBrokerModule, MmmqBrokerOptions } from '../../src';
import { PushTargetResolver } from '../../src/dispatch/push-target-guard';
import { TopicQueueContainer } from '../../src/storage';
import { BrokerApp } from '../http/broker-app.fixture';
import { FakeResolver } from './fake-resolver';

/**
 * A real broker (as `startBroker`) whose push-target checks resolve names through `resolver` instead of the
 * system's DNS, and which logs to `logger` (default: nowhere).
 */
export async function startBrokerWithDns(
  options: MmmqBrokerOptions,
  resolver: FakeResolver,
  logger: LoggerService | false = false,
): Promise<BrokerApp> {
  const given = options.persistence?.rootDir;
  const rootDir = given ?? (await mkdtemp(join(tmpdir(), 'mmmq-e2e-')));
  const moduleRef = await Test.createTestingModule({
    imports: [MmmqBrokerModule.forRoot({ ...options, persistence: { ...options.persistence, rootDir } })],
  })
    .setLogger(logger === false ? { log() {}, warn() {}, error() {} } : logger)
    .overrideProvider(PushTargetResolver)
    .useValue(resolver)
    .compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger });
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const send = async (
    method: string,
    path: string,
    body?: string | Buffer,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ) => {
    const response = await fetch(url + path, { method, body, headers });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };
  return {
    app,
    url,
    rootDir,
    topics: app.get(TopicQueueContainer),
    post: (path, body, headers) => send('POST', path, body, headers),
    request: (method, path, body) => send(method, path, body === undefined || typeof body === 'string' ? body : JSON.stringify(body)),
    async close() {
      await app.close();
      if (!given) await rm(rootDir, { recursive: true, force: true });
    },
  };
}
