import { BrokerRequestError } from './cli.errors';

/** Where `mmmq` finds the broker when neither `--broker` nor `MMMQ_BROKER` says: the standalone server's default. */
export const DEFAULT_BROKER_URL = 'http://127.0.0.1:8080';
export const TOKEN_VARIABLE = 'MMMQ_TOKEN';

/** A JSON client of the broker's HTTP API; every failure is a {@link BrokerRequestError}. */
export class BrokerClient {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly token?: string,
    private readonly signal?: AbortSignal,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  get url(): string {
    return this.baseUrl;
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    // A request of its own, linked to the shared signal only while it runs: fetch leaves its abort listener on the
    // signal it is given until garbage collection, which a bench's thousands of requests would pile up.
    const request = new AbortController();
    const cancel = () => request.abort();
    this.signal?.addEventListener('abort', cancel, { once: true });
    if (this.signal?.aborted) request.abort();
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        signal: request.signal,
      });
      text = await response.text();
    } catch (cause) {
      if (this.signal?.aborted) throw cause;
      const nested = (cause as { cause?: { code?: string; message?: string } }).cause;
      const reason = nested?.code ?? nested?.message ?? (cause as Error).message;
      throw new BrokerRequestError(`Cannot reach the broker at ${this.baseUrl} (${reason})`, undefined, undefined, { cause });
    } finally {
      this.signal?.removeEventListener('abort', cancel);
    }
    const parsed = parseJson(text);
    if (!response.ok) {
      const detail = typeof parsed === 'object' && parsed !== null && 'message' in parsed ? String(parsed.message) : text.slice(0, 500);
      throw new BrokerRequestError(`${method} ${path} failed: ${response.status} ${detail}`.trimEnd(), response.status, parsed);
    }
    return parsed as T;
  }
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
