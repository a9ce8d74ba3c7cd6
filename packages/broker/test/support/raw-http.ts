import { connect } from 'node:net';

/** An HTTP answer as it came off the socket. */
export interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  // Tests read whatever JSON came back; undefined when the body is not JSON.
  json: any;
}

/**
 * Sends `request` byte for byte over a fresh TCP connection (no client library adding or fixing headers) and
 * resolves with the first response, which is read by its Content-Length.
 */
export function rawRequest(port: number, request: string | Buffer, host = '127.0.0.1', deadlineMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => fail(new Error(`No complete response within ${deadlineMs} ms`)), deadlineMs);
    let received = Buffer.alloc(0);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const response = parse(received);
      if (response === undefined) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(response);
    });
    socket.on('error', (error) => fail(error));
    socket.on('close', () => fail(new Error(`Connection closed after ${received.length} bytes: ${received.toString()}`)));
    socket.write(request);
  });
}

function parse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (bytes.length < end + 4 + length) return undefined;
  const body = bytes.subarray(end + 4, end + 4 + length).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, json };
}

/** A request head and body as bytes: `headers` are sent exactly as listed; `Host: 127.0.0.1` is added unless given. */
export function httpRequest(method: string, path: string, headers: string[], body: string | Buffer = ''): Buffer {
  const host = headers.some((header) => /^host:/i.test(header)) ? [] : ['Host: 127.0.0.1'];
  const head = [`${method} ${path} HTTP/1.1`, ...host, ...headers, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]);
}
