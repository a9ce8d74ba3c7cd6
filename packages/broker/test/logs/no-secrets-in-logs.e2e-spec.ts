import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { BrokerApp, FAST_BACKOFF, startBroker, waitFor } from '@mmmq/test-support';
import { MmmqConsumerModule, MMMQListener } from '@mmmq/consumer';
import { INestApplication, Injectable, LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/** Recognisable strings a log line must never hold. */
const TOKEN = `tok-${randomBytes(12).toString('hex')}-SECRET`;
const WRONG_TOKEN = `tok-${randomBytes(12).toString('hex')}-WRONG`;
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const PAYLOAD_MARKER = `payload-${randomBytes(8).toString('hex')}-MARKER`;
const HEADER_MARKER = `header-${randomBytes(8).toString('hex')}-MARKER`;
const SECRETS = [TOKEN, WRONG_TOKEN, SIGNING_SECRET, SIGNING_SECRET.slice('whsec_'.length), PAYLOAD_MARKER, HEADER_MARKER];

const CONSUMER_ID = 'leak-check';
const TOPIC = 'secret.orders';

/** Every line of every level, with whatever else was passed (stacks, objects). */
class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log = (...parts: unknown[]) => this.keep('log', parts);
  error = (...parts: unknown[]) => this.keep('error', parts);
  warn = (...parts: unknown[]) => this.keep('warn', parts);
  debug = (...parts: unknown[]) => this.keep('debug', parts);
  verbose = (...parts: unknown[]) => this.keep('verbose', parts);
  fatal = (...parts: unknown[]) => this.keep('fatal', parts);

  private keep(level: string, parts: unknown[]): void {
    this.lines.push(`${level} ${parts.map((part) => (typeof part === 'string' ? part : inspect(part, { depth: 8 }))).join(' ')}`);
  }
}

let failures = 0;

@Injectable()
class FailingOnceListener {
  readonly handled: unknown[] = [];

  @MMMQListener(TOPIC, { consumerId: CONSUMER_ID })
  onOrder(content: unknown): void {
    // A handler's own error message is logged; this one says what failed without quoting the message.
    if (failures++ === 0) throw new Error('the order could not be booked');
    this.handled.push(content);
  }
}

@Module({ imports: [MmmqConsumerModule.forRoot({ signingSecrets: [SIGNING_SECRET] })], providers: [FailingOnceListener] })
class ConsumerAppModule {}

describe('logs hold no payloads, headers, tokens or signing secrets', () => {
  const logger = new CapturingLogger();
  let broker: BrokerApp | undefined;
  let consumer: INestApplication | undefined;

  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('through publishes, refusals, signed pushes, a failing handler and redelivery, at every log level', async () => {
    broker = await startBroker(
      { auth: { tokens: [{ token: TOKEN, roles: ['admin', 'publish', 'consume'] }] }, delivery: FAST_BACKOFF },
      { logger, token: TOKEN },
    );
    consumer = await NestFactory.create(ConsumerAppModule, { logger, rawBody: true });
    await consumer.listen(0, '127.0.0.1');
    const consumerUrl = `http://127.0.0.1:${(consumer.getHttpServer() as { address(): AddressInfo }).address().port}`;
    const asUser = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

    const dispatcher = await fetch(`${broker.url}/mmmq/dispatchers`, {
      method: 'POST',
      headers: asUser,
      body: JSON.stringify({ consumerId: CONSUMER_ID, host: consumerUrl, pattern: TOPIC, signingSecret: SIGNING_SECRET }),
    });
    expect(dispatcher.status).toBe(201);

    const message = { topic: TOPIC, content: { note: PAYLOAD_MARKER }, headers: { 'x-note': HEADER_MARKER } };
    expect((await broker.post('/mmmq/messages', JSON.stringify(message), asUser)).status).toBe(200);
    // Refusals: a wrong token, a body that is not JSON, content too deep, all quoting the markers.
    const wrongToken = { ...asUser, authorization: `Bearer ${WRONG_TOKEN}` };
    expect((await broker.post('/mmmq/messages', JSON.stringify(message), wrongToken)).status).toBe(401);
    expect((await broker.post('/mmmq/messages', `{"topic":"${TOPIC}","content":${PAYLOAD_MARKER}}`, asUser)).status).toBe(400);
    const deep = `{"topic":"${TOPIC}","content":${'['.repeat(100)}"${PAYLOAD_MARKER}"${']'.repeat(100)}}`;
    expect((await broker.post('/mmmq/messages', deep, asUser)).status).toBe(400);
    // A push without the signature the consumer expects, carrying the markers.
    const unsigned = await fetch(`${consumerUrl}/mmmq/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mmmq-consumer-id': CONSUMER_ID, 'x-note': HEADER_MARKER },
      body: JSON.stringify({ id: 'm-1', topic: TOPIC, content: PAYLOAD_MARKER, headers: { 'x-note': HEADER_MARKER }, offset: 0 }),
    });
    expect(unsigned.status).toBe(401);

    const listener = consumer.get(FailingOnceListener);
    await waitFor(() => listener.handled.length === 1, { message: 'the message handled on its redelivery' });
    expect(listener.handled).toEqual([{ note: PAYLOAD_MARKER }]);
    await broker.caughtUp(CONSUMER_ID, TOPIC);

    // The workload did log (the failure, the refusals), so the check below has lines to look at.
    expect(logger.lines.some((line) => line.includes('the order could not be booked'))).toBe(true);
    const leaks = logger.lines.filter((line) => SECRETS.some((secret) => line.includes(secret)));
    expect(leaks).toEqual([]);
  });
});
