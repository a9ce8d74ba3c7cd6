/** A request written byte by byte: whatever the catalogue needs, including what HTTP clients refuse to send. */
export interface RawRequest {
  method: string;
  /** Sent as is: may hold `%2e%2e`, NUL escapes, or be 100 KB long. */
  path: string;
  /** Extra header lines; `Host` and `Connection: close` come first unless `host` overrides the host. */
  headers?: Array<[string, string]>;
  body?: Buffer | string;
  /** `Content-Length` to declare; default the body's length when there is a body, none otherwise. */
  contentLength?: number | 'none';
  /** Replaces `127.0.0.1:{port}` in the Host header. */
  host?: string;
}

export function encodeRequest(request: RawRequest, port: number): Buffer {
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body);
  const lines = [`${request.method} ${request.path} HTTP/1.1`, `Host: ${request.host ?? `127.0.0.1:${port}`}`, 'Connection: close'];
  for (const [name, value] of request.headers ?? []) lines.push(`${name}: ${value}`);
  const length = request.contentLength ?? body?.length;
  if (length !== undefined && length !== 'none') lines.push(`Content-Length: ${length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]);
}

/** Whether `received` holds one whole HTTP answer (by Content-Length or the last chunk). */
export function answerComplete(received: Buffer): boolean {
  const headEnd = received.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const head = received.subarray(0, headEnd).toString('latin1');
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) return received.length - headEnd - 4 >= Number(length[1]);
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) return received.subarray(-5).toString('latin1') === '0\r\n\r\n';
  return /^HTTP\/1\.[01] (1\d\d|204|304)/.test(head);
}

export const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
