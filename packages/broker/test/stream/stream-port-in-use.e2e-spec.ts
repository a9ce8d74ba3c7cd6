import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { StreamListenError } from '../../src';
import { startBroker } from '../http/broker-app.fixture';

describe('publish stream: a port that cannot be bound fails start-up', () => {
  it('rejects with StreamListenError naming stream.port', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const error = await startBroker({ stream: { port } }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StreamListenError);
      expect((error as Error).message).toMatch(
        new RegExp(`^The publish stream cannot listen on 127\\.0\\.0\\.1:${port} \\(stream\\.port\\): .*EADDRINUSE`),
      );
    } finally {
      taken.close();
    }
  });
});
