import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PUSH_IDLE_SOCKET_TIMEOUT_MS } from '../../src/dispatch/push-sender';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { addDispatcher, publishAll } from './delivery.fixture';
import { waitUntil } from './pull.fixture';

describe('an idle push connection', () => {
  let broker: BrokerApp;
  let consumer: http.Server;

  afterEach(async () => {
    await broker.close();
    consumer.closeAllConnections();
    await new Promise((resolve) => consumer.close(resolve));
  });

  it(`is closed by the broker after ${PUSH_IDLE_SOCKET_TIMEOUT_MS} ms, before the consumer would close it (a push into a closing connection would count)`, async () => {
    const closedAfter: number[] = [];
    consumer = http.createServer((request, response) => {
      request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"acknowledgement":"ACK"}'));
    });
    // Far longer than the broker's idle timeout: whoever closes first here is the broker.
    consumer.keepAliveTimeout = 60_000;
    consumer.on('connection', (socket) => {
      let lastActive = Date.now();
      socket.on('data', () => (lastActive = Date.now()));
      socket.on('close', () => closedAfter.push(Date.now() - lastActive));
    });
    await new Promise<void>((resolve) => consumer.listen(0, '127.0.0.1', resolve));
    broker = await startBroker();
    await addDispatcher(broker, 'billing', `http://127.0.0.1:${(consumer.address() as AddressInfo).port}`, 'order.*');
    await publishAll(broker, 'order.created', [{ n: 0 }]);

    await waitUntil(() => closedAfter.length === 1, 'the broker to close the idle connection', PUSH_IDLE_SOCKET_TIMEOUT_MS + 5_000);
    expect(closedAfter[0]).toBeGreaterThanOrEqual(PUSH_IDLE_SOCKET_TIMEOUT_MS - 50);
    expect(closedAfter[0]).toBeLessThan(PUSH_IDLE_SOCKET_TIMEOUT_MS + 2_000);
  });
});
