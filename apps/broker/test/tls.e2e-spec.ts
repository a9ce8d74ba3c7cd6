import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, TLSSocket } from 'node:tls';
import { MmmqConsumerModule, MMMQListener } from '@mmmq/consumer';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { startConsumer } from '../../../packages/consumer/test/support/consumer-app';
import { createSelfSignedCertificate, SelfSignedCertificate, waitFor } from '@mmmq/test-support';
import { BrokerProcess, spawnBroker } from './broker-process.fixture';

const STREAM_LISTENING = /Publish stream listening on (mmmqs?):\/\/[^:\s]+:(\d+)/;

/** The certificate a new TLS connection to `port` is shown. */
function presentedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = connect({ host: '127.0.0.1', port, ca }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

function httpsPublish(url: string, ca: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/mmmq/messages`, { method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (chunk: string) => (text += chunk))
        .on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.once('error', reject).end(body);
  });
}

@Injectable()
class OrderListener {
  @MMMQListener('orders')
  onOrder(): void {}
}

describe('the standalone broker over TLS (MMMQ_TLS_KEY_FILE, MMMQ_TLS_CERT_FILE)', () => {
  let dir: string;
  let first: SelfSignedCertificate;
  let broker: BrokerProcess | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mmmq-tls-'));
    first = createSelfSignedCertificate(dir, 'first');
  });

  afterEach(async () => {
    broker?.child.kill('SIGKILL');
    await broker?.exited;
    broker = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (adapter: string, env: Record<string, string> = {}) => {
    broker = await spawnBroker({
      ...env,
      MMMQ_ROOT_DIR: join(dir, 'data'),
      MMMQ_HTTP_ADAPTER: adapter,
      MMMQ_TLS_KEY_FILE: join(dir, 'broker.key'),
      MMMQ_TLS_CERT_FILE: join(dir, 'broker.crt'),
    });
    const stream = STREAM_LISTENING.exec(broker.output());
    if (!stream) throw new Error(`no stream address logged:\n${broker.output()}`);
    return { broker, streamScheme: stream[1], streamPort: Number(stream[2]), httpPort: Number(new URL(broker.url).port) };
  };

  it.each(['fastify', 'express'])(
    'serves HTTPS and the publish stream as mmmqs:// on %s, and plain HTTP is not answered',
    async (adapter) => {
      await copyFile(first.keyFile, join(dir, 'broker.key'));
      await copyFile(first.certFile, join(dir, 'broker.crt'));
      const { broker, streamScheme, streamPort, httpPort } = await start(adapter);
      expect(broker.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(streamScheme).toBe('mmmqs');

      const answer = await httpsPublish(broker.url, first.cert, '{"topic":"orders","content":1}');
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ acknowledgement: 'ACK', offset: 0 });
      await expect(fetch(`http://127.0.0.1:${httpPort}/mmmq/messages`, { method: 'POST', body: '{}' })).rejects.toThrow();

      const module = await Test.createTestingModule({
        imports: [MmmqProducerModule.forRoot({ broker: `mmmqs://127.0.0.1:${streamPort}`, tls: { ca: first.cert } })],
      }).compile();
      await module.init();
      try {
        const published = await module.get(Producer).produce('orders', { n: 2 });
        expect(published.offset).toBe(1);
      } finally {
        await module.close();
      }
    },
    120_000,
  );

  it('registers a consumer over HTTPS, trusting the broker certificate given as tls.ca', async () => {
    await copyFile(first.keyFile, join(dir, 'broker.key'));
    await copyFile(first.certFile, join(dir, 'broker.crt'));
    const { broker } = await start('fastify');
    const consumer = await startConsumer(
      {
        imports: [
          MmmqConsumerModule.forRoot({
            app: 'billing',
            broker: broker.url,
            tls: { ca: first.cert },
            advertisedUrl: 'http://127.0.0.1:1',
            // Registered at bootstrap, so the list below shows it.
            registration: { failFast: true },
          }),
        ],
        providers: [OrderListener],
      },
      { port: 0 },
    );
    try {
      const listed = await new Promise<string>((resolve, reject) => {
        request(`${broker.url}/mmmq/dispatchers`, { ca: first.cert }, (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (chunk: string) => (text += chunk))
            .on('end', () => resolve(text));
        })
          .once('error', reject)
          .end();
      });
      expect(JSON.parse(listed)).toEqual([expect.objectContaining({ consumerId: 'billing.order-listener.on-order', pattern: 'orders' })]);
    } finally {
      await consumer.close();
    }
  }, 120_000);

  it('closes a connection that never starts its TLS handshake once the headers timeout passes, on HTTPS and the stream', async () => {
    await copyFile(first.keyFile, join(dir, 'broker.key'));
    await copyFile(first.certFile, join(dir, 'broker.crt'));
    const { streamPort, httpPort } = await start('fastify', { MMMQ_HTTP_HEADERS_TIMEOUT_MS: '300' });
    const closedAfter = (port: number) =>
      new Promise<number>((resolve, reject) => {
        const opened = Date.now();
        const socket = createConnection({ host: '127.0.0.1', port });
        socket.once('error', reject).once('close', () => resolve(Date.now() - opened));
        socket.resume();
      });
    // Closed by the broker, long before the 10 s default would have done it.
    expect(await closedAfter(httpPort)).toBeLessThan(5_000);
    expect(await closedAfter(streamPort)).toBeLessThan(5_000);
  }, 60_000);

  it('takes a renewed certificate on SIGHUP for new connections, and keeps the old one when the new files are unusable', async () => {
    await copyFile(first.keyFile, join(dir, 'broker.key'));
    await copyFile(first.certFile, join(dir, 'broker.crt'));
    const { broker, streamPort, httpPort } = await start('fastify');
    expect(await presentedFingerprint(httpPort, first.cert)).toBe(first.fingerprint);

    const second = createSelfSignedCertificate(dir, 'second');
    await copyFile(second.keyFile, join(dir, 'broker.key'));
    await copyFile(second.certFile, join(dir, 'broker.crt'));
    broker.child.kill('SIGHUP');
    await waitFor(() => /TLS certificate reloaded/.test(broker.output()), {
      deadlineMs: 10_000,
      message: () => `the reload to be logged:\n${broker.output()}`,
    });
    expect(await presentedFingerprint(httpPort, second.cert)).toBe(second.fingerprint);
    expect(await presentedFingerprint(streamPort, second.cert)).toBe(second.fingerprint);

    await writeFile(join(dir, 'broker.crt'), '-----BEGIN CERTIFICATE-----\nnot a certificate\n');
    broker.child.kill('SIGHUP');
    await waitFor(() => /TLS certificate not reloaded, the previous one stays in use/.test(broker.output()), {
      deadlineMs: 10_000,
      message: () => `the refused reload to be logged:\n${broker.output()}`,
    });
    expect(await presentedFingerprint(httpPort, second.cert)).toBe(second.fingerprint);
    expect((await httpsPublish(broker.url, second.cert, '{"topic":"orders","content":3}')).status).toBe(200);
  }, 120_000);

  it.each([
    [{ MMMQ_TLS_KEY_FILE: 'broker.key' }, /MMMQ_TLS_CERT_FILE must be set too/],
    [{ MMMQ_TLS_KEY_FILE: 'missing.key', MMMQ_TLS_CERT_FILE: 'missing.crt' }, /MMMQ_TLS_KEY_FILE \(.*missing\.key\) cannot be read/],
    [
      { MMMQ_TLS_KEY_FILE: 'second.key', MMMQ_TLS_CERT_FILE: 'first.crt' },
      /MMMQ_TLS_KEY_FILE .* and MMMQ_TLS_CERT_FILE .* are not a usable key and certificate/,
    ],
  ])(
    'refuses to start on %j, naming the variable',
    async (env, message) => {
      createSelfSignedCertificate(dir, 'second');
      const absolute = Object.fromEntries(Object.entries(env).map(([name, file]) => [name, join(dir, file)]));
      const starting = spawnBroker({ MMMQ_ROOT_DIR: join(dir, 'data'), ...absolute });
      await expect(starting).rejects.toThrow(/exited \(code 1, signal null\)/);
      await expect(starting).rejects.toThrow(message);
    },
    60_000,
  );
});
