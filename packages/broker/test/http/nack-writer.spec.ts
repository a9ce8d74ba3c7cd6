import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { writeNack } from '../../src/http/nack-writer';
import { PayloadTooLargeError } from '../../src/publish/publish.errors';
import { AuthenticationRequiredError } from '../../src/security/security.errors';
import { StorageUnavailableError } from '../../src/storage';

/** A real Node server whose every request fails with `error`, answered by writeNack; `before` may answer first. */
async function answering(
  error: unknown,
  logger: Logger,
  before?: (response: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    before?.(response);
    writeNack(request, response, error, logger);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mmmq/messages` };
}

describe('writeNack, the NACK of a route served on Node’s own response', () => {
  const servers: Server[] = [];
  const logger = new Logger('test');
  const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  const send = async (error: unknown, before?: (response: ServerResponse) => void) => {
    const { server, url } = await answering(error, logger, before);
    servers.push(server);
    const response = await fetch(url, { method: 'POST' });
    return { status: response.status, headers: response.headers, body: await response.text() };
  };
  afterEach(async () => {
    errors.mockClear();
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  it('answers an expected refusal with its status and NACK, and logs nothing', async () => {
    const answer = await send(new PayloadTooLargeError('too big'));
    expect(answer.status).toBe(413);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.body)).toEqual({ acknowledgement: 'NACK', message: 'too big' });
    expect(errors).not.toHaveBeenCalled();
  });

  it('sends the Bearer challenge with a 401, and Retry-After with a 503', async () => {
    const unauthenticated = await send(new AuthenticationRequiredError('send a token'));
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toBe('Bearer realm="mmmq"');
    const unavailable = await send(new StorageUnavailableError('faulted', { retryAfterMs: 2_500 }));
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('3');
  });

  it('answers a bug with 500 and a message that reveals nothing, and logs it with the request and its stack', async () => {
    const answer = await send(new TypeError('secret detail'));
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body)).toEqual({ acknowledgement: 'NACK', message: 'Internal broker error; the message was not stored' });
    expect(errors).toHaveBeenCalledWith('POST /mmmq/messages failed: secret detail', expect.stringContaining('TypeError'));
  });

  it('leaves an answer already sent (the shutdown gate’s 503) as it is', async () => {
    const answer = await send(new PayloadTooLargeError('too big'), (response) => {
      response.writeHead(503, { 'Content-Type': 'text/plain', 'Content-Length': '7' });
      response.end('closing');
    });
    expect(answer).toMatchObject({ status: 503, body: 'closing' });
  });
});
