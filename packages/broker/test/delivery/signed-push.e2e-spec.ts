import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SigningSecret, verifyWebhook } from '@mmmq/core';
import { LoggerService } from '@nestjs/common';
import { MmmqBrokerOptions } from '../../src';
import { BrokerApp } from '../http/broker-app.fixture';
import { startBrokerWithDns } from '../support/broker-with-dns';
import { FakeResolver } from '../support/fake-resolver';
import { TestConsumer, waitFor } from '@mmmq/test-support';
import { publishAll } from './delivery.fixture';

const SECRET = SigningSecret.generate();
const OTHER_SECRET = SigningSecret.generate();

/** Every line the broker logs, by level. */
class LogLines implements LoggerService {
  readonly lines: Array<{ level: string; message: string }> = [];
  log = (message: unknown) => this.lines.push({ level: 'log', message: String(message) });
  warn = (message: unknown) => this.lines.push({ level: 'warn', message: String(message) });
  error = (message: unknown, ...rest: unknown[]) => this.lines.push({ level: 'error', message: [message, ...rest].join(' ') });
  errors = (containing: string) => this.lines.filter((line) => line.level === 'error' && line.message.includes(containing));
}

describe('signed push deliveries', () => {
  let broker: BrokerApp;
  let consumer: TestConsumer;
  let logs: LogLines;

  const start = async (delivery: MmmqBrokerOptions['delivery']) => {
    logs = new LogLines();
    consumer = new TestConsumer();
    await consumer.start();
    broker = await startBrokerWithDns({ delivery }, new FakeResolver(), logs);
  };
  const register = (fields: Record<string, unknown> = {}, method = 'POST') =>
    broker.request(method, method === 'POST' ? '/mmmq/dispatchers' : '/mmmq/dispatchers/billing', {
      consumerId: 'billing',
      host: consumer.url,
      pattern: 'order.*',
      ...fields,
    });
  const subscription = async () =>
    (await broker.request('GET', '/mmmq/subscriptions')).body.find((row: any) => row.consumerId === 'billing');
  const verify = (request: { headers: Record<string, unknown>; raw: Buffer }, secrets = [SECRET]) =>
    verifyWebhook(
      secrets,
      {
        id: request.headers['webhook-id'] as string,
        timestamp: request.headers['webhook-timestamp'] as string,
        signature: request.headers['webhook-signature'] as string,
      },
      request.raw,
    );

  afterEach(async () => {
    await broker.close();
    await consumer.stop();
    // The secret is never logged, whatever happened.
    for (const { message } of logs.lines) expect(message).not.toContain(SECRET.reveal().slice(6));
  });

  describe('with quick retries', () => {
    beforeEach(() => start({ backoff: { initialMs: 20, maxMs: 100 } }));

    it('stores the secret in dispatchers.json (mode 0600) and shows only "signed": true', async () => {
      const created = await register({ signingSecret: SECRET.reveal() });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ consumerId: 'billing', signed: true });
      expect(JSON.stringify(created.body)).not.toContain(SECRET.reveal());
      for (const path of ['/mmmq/dispatchers', '/mmmq/dispatchers/billing']) {
        const shown = await broker.request('GET', path);
        expect(JSON.stringify(shown.body)).toContain('"signed":true');
        expect(JSON.stringify(shown.body)).not.toContain(SECRET.reveal().slice(6));
      }
      const file = join(broker.rootDir, 'dispatchers.json');
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([
        expect.objectContaining({ consumerId: 'billing', signingSecret: SECRET.reveal() }),
      ]);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      const unsigned = await register({}, 'PUT');
      expect(unsigned.body.signed).toBeUndefined();
      expect(JSON.parse(readFileSync(file, 'utf8'))[0].signingSecret).toBeUndefined();
    });

    it.each([
      ['no prefix', SECRET.reveal().slice(6)],
      ['too short a key', `whsec_${Buffer.alloc(16, 1).toString('base64')}`],
      ['not base64', `whsec_${'*'.repeat(40)}`],
      ['not a string', 42],
    ])('refuses a signingSecret with %s with 400, without quoting it, changing nothing', async (_, signingSecret) => {
      const response = await register({ signingSecret });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/^dispatcher: signingSecret must be/);
      if (typeof signingSecret === 'string') expect(response.body.message).not.toContain(signingSecret.slice(6, 20));
      expect(JSON.parse(readFileSync(join(broker.rootDir, 'dispatchers.json'), 'utf8'))).toEqual([]);
    });

    it('signs every attempt over the exact body; the webhook-id stays the same on retries', async () => {
      let attempts = 0;
      consumer.reply = () => (++attempts === 1 ? { status: 500 } : 'ACK');
      expect((await register({ signingSecret: SECRET.reveal() })).status).toBe(201);
      await publishAll(broker, 'order.created', [{ n: 0 }, { n: 1 }]);
      await consumer.waitFor(() => consumer.received.length === 3);

      const [first, retry, next] = consumer.rawRequests;
      for (const request of consumer.rawRequests) {
        expect(() => verify(request)).not.toThrow();
        expect(() => verify(request, [OTHER_SECRET])).toThrow('matches a known signing secret');
        expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      }
      expect(first.headers['webhook-id']).toBe('billing:order.created:0');
      expect(retry.headers['webhook-id']).toBe('billing:order.created:0');
      expect(JSON.parse(retry.raw.toString()).deliveryCount).toBe(2);
      expect(next.headers['webhook-id']).toBe('billing:order.created:1');
    });

    it('signs batches, identified by their offsets', async () => {
      expect((await register({ signingSecret: SECRET.reveal(), batchSize: 3 })).status).toBe(201);
      await publishAll(broker, 'order.created', [{ n: 0 }, { n: 1 }, { n: 2 }]);
      await consumer.waitFor(() => consumer.received.length === 3);
      const batch = consumer.rawRequests.find((request) => request.url.endsWith('/batch'))!;
      expect(() => verify(batch)).not.toThrow();
      expect(batch.headers['webhook-id']).toMatch(/^billing:order\.created:0(-[12])?$/);
    });

    it('sends no webhook headers for a dispatcher without a secret', async () => {
      expect((await register()).status).toBe(201);
      await publishAll(broker, 'order.created', [{ n: 0 }]);
      await consumer.waitFor(() => consumer.received.length === 1);
      expect(Object.keys(consumer.rawRequests[0].headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);
    });

    it('turns 401s into the unauthorized state, logged once, counted, retried, and left when a push succeeds', async () => {
      let accept = false;
      consumer.reply = () => (accept ? 'ACK' : { status: 401, body: { acknowledgement: 'NACK', message: 'No v1 signature matches' } });
      expect((await register({ signingSecret: OTHER_SECRET.reveal() })).status).toBe(201);
      await publishAll(broker, 'order.created', [{ n: 0 }]);

      await waitFor(async () => (await subscription())?.stats.unauthorized >= 4, { message: 'four refused pushes' });
      const refused = await subscription();
      expect(refused).toMatchObject({ state: 'unauthorized', lag: 1 });
      expect(refused.stats.lastError).toBe(
        `Delivery to billing at ${consumer.url}/mmmq/messages failed: HTTP 401: No v1 signature matches`,
      );
      expect(logs.errors('refuses the pushes as unauthorized')).toHaveLength(1);
      expect(logs.errors('refuses the pushes as unauthorized')[0].message).toContain('order.created → billing');
      expect(logs.lines.filter((line) => line.level === 'warn' && line.message.includes('401'))).toHaveLength(0);

      accept = true;
      await waitFor(async () => (await subscription()).lag === 0, { message: 'the backlog acknowledged' });
      expect(await subscription()).toMatchObject({ state: 'active' });
      expect(
        logs.lines.some(
          (line) => line.message.includes('order.created → billing (') && line.message.includes('): the consumer accepts the pushes again'),
        ),
      ).toBe(true);
    });
  });

  describe('at the longest backoff (default, 60 s)', () => {
    beforeEach(() => start({ backoff: { initialMs: 20 } }));

    it.each([
      ['the same definition', () => OTHER_SECRET],
      ['the right secret', () => SECRET],
    ])('retries at once when the consumer registers again with %s', async (_, secretAfter) => {
      let accepted = SECRET;
      consumer.reply = (delivery) => {
        try {
          verify({ headers: delivery.headers, raw: delivery.raw }, [accepted]);
          return 'ACK';
        } catch (error) {
          return { status: 401, body: { acknowledgement: 'NACK', message: (error as Error).message } };
        }
      };
      expect((await register({ signingSecret: OTHER_SECRET.reveal() })).status).toBe(201);
      await publishAll(broker, 'order.created', [{ n: 0 }]);
      await waitFor(async () => (await subscription())?.state === 'unauthorized', { message: 'the unauthorized state' });

      // The consumer now accepts what the broker will sign, and registers again: no 60 s wait.
      if (secretAfter() === OTHER_SECRET) accepted = OTHER_SECRET;
      expect((await register({ signingSecret: secretAfter().reveal() }, 'PUT')).status).toBe(200);
      await waitFor(async () => (await subscription())?.lag === 0, {
        message: 'delivery right after registering again',
        deadlineMs: 10_000,
      });
      expect(await subscription()).toMatchObject({ state: 'active' });
    });
  });
});
