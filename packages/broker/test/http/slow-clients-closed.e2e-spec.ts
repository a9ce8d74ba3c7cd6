import { connect, Socket } from 'node:net';
import { AddressInfo } from 'node:net';
import { STREAM_PREAMBLE } from '@mmmq/core';
import { PublishStreamServer } from '../../src';
import { BrokerApp, HTTP_PLATFORMS, startBroker } from './broker-app.fixture';

/** Far above the (shortened) timeouts below: a connection still open by then was never going to be closed. */
const DEADLINE_MS = 5_000;
const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 600;
const KEEP_ALIVE_TIMEOUT_MS = 300;

/** A raw client connection that records what it received and when the broker closed it. */
class Connection {
  readonly socket: Socket;
  received = '';
  isClosed = false;
  readonly connected: Promise<void>;
  private readonly closedAt: Promise<void>;

  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port });
    this.socket.on('data', (chunk: Buffer) => (this.received += chunk.toString('latin1')));
    this.socket.on('error', () => undefined);
    this.connected = new Promise((resolve) => this.socket.once('connect', () => resolve()));
    this.closedAt = new Promise((resolve) =>
      this.socket.once('close', () => {
        this.isClosed = true;
        resolve();
      }),
    );
  }

  /** Resolves once the broker closed the connection; fails the test if it is still open after the deadline. */
  closed(what: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`The broker kept ${what} open for ${DEADLINE_MS} ms`)), DEADLINE_MS);
    });
    return Promise.race([this.closedAt, deadline]).finally(() => clearTimeout(timer));
  }

  /** What the broker answered; fails if it closed the connection without answering, or took too long. */
  async responded(): Promise<string> {
    const deadline = Date.now() + DEADLINE_MS;
    while (!this.received.includes('\r\n\r\n')) {
      if (this.isClosed) throw new Error('Closed without an answer');
      if (Date.now() > deadline) throw new Error(`No response within ${DEADLINE_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.received;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

describe.each(HTTP_PLATFORMS)('on %s, clients that are slow or idle are cut off', (platform) => {
  let broker: BrokerApp;
  let port: number;
  const open: Connection[] = [];
  const connection = () => {
    const opened = new Connection(port);
    open.push(opened);
    return opened;
  };

  beforeAll(async () => {
    broker = await startBroker(
      {
        http: {
          headersTimeoutMs: HEADERS_TIMEOUT_MS,
          requestTimeoutMs: REQUEST_TIMEOUT_MS,
          keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
        },
      },
      { bodyParser: false },
      platform,
    );
    port = (broker.app.getHttpServer().address() as AddressInfo).port;
  });
  afterEach(() => open.splice(0).forEach((opened) => opened.destroy()));
  afterAll(() => broker.close());

  it('closes a connection that never finishes its headers, trickling bytes or not, with 408', async () => {
    const silent = connection();
    const trickling = connection();
    await Promise.all([silent.connected, trickling.connected]);
    silent.socket.write('POST /mmmq/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const drip = setInterval(() => trickling.socket.write('X-Slow: 1\r\n'), 50);
    trickling.socket.write('POST /mmmq/messages HTTP/1.1\r\n');
    try {
      await Promise.all([silent.closed('a half-sent head'), trickling.closed('a trickled head')]);
    } finally {
      clearInterval(drip);
    }
    expect(silent.received).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a connection whose body never finishes, and stores nothing', async () => {
    const slow = connection();
    await slow.connected;
    slow.socket.write(
      'POST /mmmq/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"topic":"t",',
    );
    await slow.closed('a body that never ends');
    expect(broker.topics.get('t')).toBeUndefined();
  });

  it('closes an idle keep-alive connection after its last answer', async () => {
    const idle = connection();
    await idle.connected;
    idle.socket.write('GET /mmmq/dispatchers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await idle.responded()).toMatch(/^HTTP\/1\.1 200/);
    await idle.closed('an idle keep-alive connection');
  });
});

describe.each(HTTP_PLATFORMS)('on %s, one client address holds at most http.maxConnectionsPerIp connections', (platform) => {
  const CAP = 4;
  let broker: BrokerApp;
  const open: Connection[] = [];

  beforeAll(async () => {
    broker = await startBroker({ http: { maxConnectionsPerIp: CAP }, stream: { port: 0 } }, { bodyParser: false }, platform);
  });
  afterEach(() => open.splice(0).forEach((opened) => opened.destroy()));
  afterAll(() => broker.close());

  /** Opens `count` connections and has each of them fully accepted (answered, or past the preamble). */
  async function fill(port: number, count: number, prove: (connection: Connection) => Promise<void>): Promise<Connection[]> {
    const connections = Array.from({ length: count }, () => new Connection(port));
    open.push(...connections);
    await Promise.all(connections.map(prove));
    return connections;
  }
  const answered = async (connection: Connection) => {
    await connection.connected;
    connection.socket.write('GET /mmmq/dispatchers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await connection.responded()).toMatch(/^HTTP\/1\.1 200/);
  };

  it('closes HTTP connections beyond the cap at once, and accepts again once one is gone', async () => {
    const port = (broker.app.getHttpServer().address() as AddressInfo).port;
    const [first] = await fill(port, CAP, answered);
    const extra = new Connection(port);
    open.push(extra);
    await extra.closed(`connection ${CAP + 1} of one address`);
    expect(extra.received).toBe('');

    first.destroy();
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const retry = new Connection(port);
      open.push(retry);
      try {
        await answered(retry);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  });

  it('caps publish stream connections the same way', async () => {
    const port = broker.app.get(PublishStreamServer).address()!.port;
    await fill(port, CAP, async (connection) => {
      await connection.connected;
      connection.socket.write(STREAM_PREAMBLE);
    });
    const extra = new Connection(port);
    open.push(extra);
    await extra.closed(`stream connection ${CAP + 1} of one address`);
  });
});
