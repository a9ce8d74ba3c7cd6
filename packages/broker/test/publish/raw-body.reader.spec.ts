import { createServer, IncomingMessage, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@mmmq/test-support';
import { resolveBrokerOptions } from '../../src/mmmq-broker-options.resolver';
import { RawBodyReader, RequestWithRawBody } from '../../src/http/raw-body.reader';

const LIMIT = 1000;
const reader = new RawBodyReader(resolveBrokerOptions({ http: { maxBodyBytes: LIMIT } }).http);
const JSON_TYPE = { 'content-type': 'application/json' };

type Outcome = { read: string } | { error: string; message: string };

/** A real server whose handler optionally touches the request, then runs the reader and reports the outcome. */
async function serve(prepare: (request: IncomingMessage & RequestWithRawBody) => Promise<void> = async () => undefined) {
  const outcomes: Outcome[] = [];
  const server: Server = createServer(async (incoming, response) => {
    let outcome: Outcome;
    try {
      await prepare(incoming);
      outcome = { read: (await reader.read(incoming)).toString() };
    } catch (error) {
      outcome = { error: (error as Error).name, message: (error as Error).message };
    }
    outcomes.push(outcome);
    response.end(JSON.stringify(outcome));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, outcomes, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Sends the chunks (no Content-Length unless given, JSON unless told) and resolves with the parsed response. */
function send(port: number, chunks: (string | Buffer)[], headers: Record<string, string | number> = JSON_TYPE) {
  return new Promise<Outcome>((resolve, reject) => {
    const outgoing = request({ port, host: '127.0.0.1', method: 'POST', headers }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve(JSON.parse(text) as Outcome));
    });
    outgoing.on('error', reject);
    for (const chunk of chunks) outgoing.write(chunk);
    outgoing.end();
  });
}

describe('RawBodyReader', () => {
  let server: Awaited<ReturnType<typeof serve>>;

  afterEach(() => server.close());

  it('joins a streamed body up to the limit', async () => {
    server = await serve();
    expect(await send(server.port, ['a'.repeat(600), 'b'.repeat(400)])).toEqual({
      read: 'a'.repeat(600) + 'b'.repeat(400),
    });
  });

  it('refuses a declared Content-Length over the limit, and the client still gets the answer', async () => {
    server = await serve();
    const body = 'x'.repeat(LIMIT + 1);
    expect(await send(server.port, [body], { ...JSON_TYPE, 'content-length': body.length })).toMatchObject({
      error: 'PayloadTooLargeError',
    });
  });

  it('refuses a chunked body as soon as the count passes the limit', async () => {
    server = await serve();
    const outcome = await send(server.port, ['x'.repeat(700), 'y'.repeat(700), 'z'.repeat(5000)]);
    expect(outcome).toEqual({ error: 'PayloadTooLargeError', message: expect.stringMatching(/1400 bytes/) });
  });

  it('uses the raw body a Nest body parser kept, within the same limit', async () => {
    server = await serve(async (incoming) => {
      incoming.rawBody = Buffer.from(await drain(incoming));
    });
    expect(await send(server.port, ['{"a":1}'])).toEqual({ read: '{"a":1}' });
    expect(await send(server.port, ['x'.repeat(LIMIT + 1)])).toMatchObject({ error: 'PayloadTooLargeError' });
  });

  it('says the exact bytes are lost when something read the stream before the broker', async () => {
    server = await serve(async (incoming) => void (await drain(incoming)));
    expect(await send(server.port, ['{}'])).toEqual({
      error: 'RequestBodyConsumedError',
      message: expect.stringMatching(/exact bytes are lost; leave \/mmmq\/ routes to the broker/),
    });
  });

  it('refuses a compressed body', async () => {
    server = await serve();
    expect(await send(server.port, ['x'], { ...JSON_TYPE, 'content-encoding': 'gzip' })).toMatchObject({
      error: 'UnsupportedContentEncodingError',
    });
  });

  it.each(['application/json', 'application/json; charset=UTF-8', 'Application/JSON;charset="utf8"', 'application/vnd.api+json'])(
    'reads a body of type %s',
    async (type) => {
      server = await serve();
      expect(await send(server.port, ['{}'], { 'content-type': type })).toEqual({ read: '{}' });
    },
  );

  it.each([
    [{}, /Content-Type is missing/],
    [{ 'content-type': 'text/plain' }, /"text\/plain" is not supported/],
    [{ 'content-type': 'application/x-www-form-urlencoded' }, /not supported/],
    [{ 'content-type': 'multipart/form-data; boundary=x' }, /not supported/],
    [{ 'content-type': 'application/jsonp' }, /not supported/],
    [{ 'content-type': 'application/json; charset=iso-8859-1' }, /must be UTF-8/],
  ])('refuses a body sent with %j as an unsupported media type', async (headers, message) => {
    server = await serve();
    expect(await send(server.port, ['{}'], headers)).toEqual({
      error: 'UnsupportedContentTypeError',
      message: expect.stringMatching(message),
    });
  });

  it('refuses a request without a body as a bad request, whatever its type', async () => {
    server = await serve();
    const noBody = { error: 'MissingRequestBodyError', message: expect.stringMatching(/no body/) };
    expect(await send(server.port, [], { 'content-length': 0 })).toEqual(noBody);
    expect(await send(server.port, [], { ...JSON_TYPE, 'content-length': 0 })).toEqual(noBody);
  });

  it('fails cleanly when the client goes away mid-body', async () => {
    let arrived = false;
    server = await serve(async () => void (arrived = true));
    const outgoing = request({ port: server.port, host: '127.0.0.1', method: 'POST', headers: JSON_TYPE });
    outgoing.on('error', () => undefined);
    outgoing.write('partial');
    // Gone once the server reads the request: its body (chunked, unterminated) can never end.
    await waitFor(() => arrived, { message: 'the request to reach the server' });
    outgoing.destroy();
    await waitFor(() => server.outcomes.length > 0, { message: 'the reader to report the aborted body' });
    expect(server.outcomes).toEqual([{ error: 'IncompleteRequestBodyError', message: expect.any(String) }]);
  });
});

async function drain(incoming: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of incoming) text += chunk;
  return text;
}
