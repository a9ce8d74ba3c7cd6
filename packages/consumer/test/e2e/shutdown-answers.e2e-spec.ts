import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MESSAGES_PATH } from '@mmmq/core';
import { MmmqBrokerModule } from '@mmmq/broker';
import { Injectable } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { MmmqConsumerModule, MMMQListener } from '../../src';
import { ConsumerApp, delivery, startConsumer } from '../support/consumer-app';
import { Gate } from '../support/gate';
import { waitFor } from '../support/wait-for';

/** Far longer than the test's own deadline: only the shutdown gate can end a stalled request in time. */
const SHUTDOWN_TIMEOUT_MS = 60_000;
/** The body grace (1 s) and the close, with room for a busy machine. */
const CLOSE_DEADLINE_MS = 8_000;

const started: string[] = [];
let handlerGate: Gate | undefined;

@Injectable()
class BillingListener {
  @MMMQListener('order.*', { consumerId: 'billing' })
  async onOrder(content: { name: string }): Promise<void> {
    started.push(content.name);
    await handlerGate?.promise;
  }
}

/** One HTTP/1.1 exchange over a raw socket, so a request can be left half-sent; resolves with all the server wrote. */
function rawExchange(port: number, request: string): { sent: Promise<void>; answer: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const sent = new Promise<void>((resolve) => socket.once('connect', () => socket.write(request, () => resolve())));
  const answer = new Promise<string>((resolve, reject) => {
    socket.once('error', (error) => reject(new Error(`${error.message} after ${JSON.stringify(received)}`)));
    socket.once('close', () => resolve(received));
  });
  return { sent, answer };
}

/** A delivery that promises 200 bytes, sends a few and stalls. */
function stalledDelivery(port: number): { sent: Promise<void>; answer: Promise<string> } {
  const head =
    `POST ${MESSAGES_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
    'mmmq-consumer-id: billing\r\nContent-Length: 200\r\n\r\n';
  return rawExchange(port, head + '{"id":"m-1","to');
}

/** Rejects when `promise` has not settled within `ms`: a shutdown that hangs fails the test instead of the run. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The status lines the server wrote, in order. */
function statusLines(answer: string): string[] {
  return answer.split('\r\n').filter((line) => line.startsWith('HTTP/1.1 '));
}

describe('a push consumer shutting down answers every request', () => {
  let consumer: ConsumerApp | undefined;
  let rootDir: string | undefined;

  beforeEach(() => {
    started.length = 0;
    handlerGate = undefined;
  });

  afterEach(async () => {
    handlerGate?.open();
    const server = consumer?.app.getHttpServer() as Server | undefined;
    server?.closeAllConnections();
    await consumer?.close();
    consumer = undefined;
    if (rootDir !== undefined) await rm(rootDir, { recursive: true, force: true });
    rootDir = undefined;
  });

  it.each(['express', 'fastify'] as const)(
    'on %s: a delivery whose body stalled is answered 503 and app.close() ends within its deadline',
    async (adapter) => {
      consumer = await startConsumerOn(adapter, { imports: [MmmqConsumerModule.forRoot({ shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS })] });
      const stalled = stalledDelivery(consumer.port);
      await stalled.sent;
      // Answered after the stalled one was read (one thread, in arrival order): the server holds it by now.
      expect((await consumer.deliver('billing', delivery({ name: 'before' }))).status).toBe(200);

      await within(consumer.close(), CLOSE_DEADLINE_MS, 'app.close() with a stalled delivery');
      consumer = undefined;
      const answer = await within(stalled.answer, CLOSE_DEADLINE_MS, 'the answer to the stalled delivery');
      expect(statusLines(answer)).toEqual(['HTTP/1.1 503 Service Unavailable']);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        acknowledgement: 'NACK',
        message: expect.stringMatching(/shutting down/),
      });
    },
  );

  it('finishes a delivery in flight (ACK, Connection: close) and refuses a new one with 503', async () => {
    consumer = await startConsumer({
      imports: [MmmqConsumerModule.forRoot({ shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS })],
      providers: [BillingListener],
    });
    handlerGate = new Gate();
    const inFlight = consumer.deliver('billing', delivery({ name: 'in-flight' }));
    await waitFor(() => started.includes('in-flight'), 'the handler to start');

    const app = consumer;
    const closing = consumer.close();
    const late = rawExchange(app.port, deliveryRequest({ name: 'late' }));
    const lateAnswer = await within(late.answer, CLOSE_DEADLINE_MS, 'the answer to a delivery sent during shutdown');
    expect(statusLines(lateAnswer)).toEqual(['HTTP/1.1 503 Service Unavailable']);
    expect(started).toEqual(['in-flight']);

    handlerGate.open();
    const answered = await inFlight;
    expect(answered).toMatchObject({ status: 200, body: { acknowledgement: 'ACK' } });
    expect(answered.headers.get('connection')).toBe('close');
    await within(closing, CLOSE_DEADLINE_MS, 'app.close() once the handler finished');
    consumer = undefined;
  });

  it('shares one gate with a broker in the same application: one answer per request, and the close ends', async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-consumer-gate-'));
    consumer = await startConsumer(
      {
        imports: [
          MmmqBrokerModule.forRoot({ persistence: { rootDir } }),
          MmmqConsumerModule.forRoot({ shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS }),
        ],
      },
      { bodyParser: false },
    );
    const server = consumer.app.getHttpServer() as Server;
    // The broker's RequestTap, around the one gate and the framework's handler.
    expect(server.listeners('request')).toHaveLength(1);
    const stalled = stalledDelivery(consumer.port);
    await stalled.sent;
    expect((await fetch(`${consumer.url}/mmmq/dispatchers`)).status).toBe(200);

    await within(consumer.close(), CLOSE_DEADLINE_MS, 'app.close() of a broker and a consumer with a stalled request');
    consumer = undefined;
    const answer = await within(stalled.answer, CLOSE_DEADLINE_MS, 'the answer to the stalled request');
    expect(statusLines(answer)).toEqual(['HTTP/1.1 503 Service Unavailable']);
  });
});

function deliveryRequest(content: unknown): string {
  const body = JSON.stringify(delivery(content));
  return (
    `POST ${MESSAGES_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nmmmq-consumer-id: billing\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

function startConsumerOn(adapter: 'express' | 'fastify', metadata: Parameters<typeof startConsumer>[0]): Promise<ConsumerApp> {
  return startConsumer(metadata, adapter === 'fastify' ? { httpAdapter: new FastifyAdapter() } : {});
}
