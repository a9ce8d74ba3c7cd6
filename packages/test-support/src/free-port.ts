import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A port free right now on 127.0.0.1, for a server whose URL must be known before it starts (or again after a
 * restart). Listening on port 0 is better wherever the URL can be read after listening.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
