import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchContent } from '../payload';
import { expectHosts, postDispatcher } from './mmmq-dispatchers';
import type { ConsumeHandle, OnMemberMessage, PlainDispatcherSettings } from './system';

const ACK = JSON.stringify({ acknowledgement: 'ACK' });

/**
 * A consumer that speaks only the plain wire contract (docs/delivery.md § What the consumer receives), as a service in another language would:
 * a node:http server answering each `POST /mmmq/messages` (one message per push) with
 * `{"acknowledgement":"ACK"}` after handling it. No MMMQ library, no batching.
 */
function plainServer(member: number, onMessage: OnMemberMessage): http.Server {
  return http.createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/mmmq/messages') {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let content: BenchContent;
      try {
        content = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { content: BenchContent }).content;
      } catch (error) {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ acknowledgement: 'NACK', message: (error as Error).message }));
        return;
      }
      onMessage(member, content);
      response.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
    });
  });
}

/**
 * `members` plain consumers sharing `consumerId`: each server registers itself with
 * `POST /mmmq/dispatchers {"consumerId","host","pattern"}` — no `batchSize`, no `maxInFlight`, the defaults
 * of docs/delivery.md § Dispatchers — and from the second on the broker adds its host to the group.
 */
export async function startPlainConsumers(
  brokerPort: number,
  consumerId: string,
  pattern: string,
  members: number,
  onMessage: OnMemberMessage,
  settings: PlainDispatcherSettings = {},
): Promise<ConsumeHandle> {
  const servers: http.Server[] = [];
  const close = async () => {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  };
  try {
    const hosts: string[] = [];
    for (let m = 0; m < members; m++) {
      const server = plainServer(m, onMessage);
      servers.push(server);
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
      const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await postDispatcher(brokerPort, { consumerId, host, pattern, ...settings });
      hosts.push(host);
    }
    // One member needs no broker with member groups (GET shows `hosts` only since those came): an older broker runs it too.
    if (members > 1) await expectHosts(brokerPort, consumerId, hosts);
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}
