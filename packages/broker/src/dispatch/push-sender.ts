import http from 'node:http';
import https from 'node:https';
import {
  CONSUMER_ID_HEADER,
  ConsumerAcknowledgement,
  Host,
  isConsumerAcknowledgement,
  MESSAGES_PATH,
  MmmqError,
  PUSH_SEQUENCE_HEADER,
  PUSH_SESSION_HEADER,
} from '@mmmq/core';

/** A push that gets no complete reply within this time counts as failed (and is retried with backoff). */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 30_000;
/** Where a consumer that asked for batches receives them. */
export const BATCH_MESSAGES_PATH = `${MESSAGES_PATH}/batch`;
/** A consumer's reply is small JSON (one acknowledgement per message); anything longer is not one. */
const MAX_REPLY_BYTES = 1024 * 1024;

/** Where a push stands among the pushes in flight of its subscription (dispatchers with `maxInFlight` > 1). */
export interface PushOrder {
  session: string;
  sequence: number;
}

/** A push got no usable acknowledgement: connection error, timeout, HTTP status ≥ 400 or an unreadable reply. */
export class DeliveryFailedError extends MmmqError {}

/**
 * POSTs deliveries to consumers over keep-alive connections. It knows nothing of retries: one call, one
 * request, one verdict.
 */
export class PushSender {
  private readonly agents = {
    HTTP: new http.Agent({ keepAlive: true }),
    HTTPS: new https.Agent({ keepAlive: true }),
  };

  constructor(private readonly timeoutMs: number = DEFAULT_DELIVERY_TIMEOUT_MS) {}

  /** Pushes one delivery body (SPEC §3) and returns the consumer's acknowledgement. */
  async send(host: Host, consumerId: string, body: Buffer, signal: AbortSignal, order?: PushOrder): Promise<ConsumerAcknowledgement> {
    const reply = await this.post(host, MESSAGES_PATH, consumerId, body, signal, order);
    if (!isConsumerAcknowledgement(reply)) throw this.failure(host, MESSAGES_PATH, consumerId, 'no {"acknowledgement":"ACK"|"NACK"} in the reply');
    return reply;
  }

  /** Pushes `{"messages":[…]}` and returns one acknowledgement per message, in order. */
  async sendBatch(
    host: Host,
    consumerId: string,
    body: Buffer,
    count: number,
    signal: AbortSignal,
    order?: PushOrder,
  ): Promise<ConsumerAcknowledgement[]> {
    const reply = (await this.post(host, BATCH_MESSAGES_PATH, consumerId, body, signal, order)) as { acknowledgements?: unknown };
    const acknowledgements = reply?.acknowledgements;
    if (!Array.isArray(acknowledgements) || acknowledgements.length !== count || !acknowledgements.every(isConsumerAcknowledgement)) {
      throw this.failure(host, BATCH_MESSAGES_PATH, consumerId, `the reply needs "acknowledgements" with ${count} entries`);
    }
    return acknowledgements;
  }

  private post(host: Host, path: string, consumerId: string, body: Buffer, signal: AbortSignal, order?: PushOrder): Promise<unknown> {
    const client = host.protocol === 'HTTPS' ? https : http;
    const headers: http.OutgoingHttpHeaders = {
      'content-type': 'application/json',
      'content-length': body.length,
      [CONSUMER_ID_HEADER]: consumerId,
    };
    if (order) {
      headers[PUSH_SESSION_HEADER] = order.session;
      headers[PUSH_SEQUENCE_HEADER] = String(order.sequence);
    }
    return new Promise((resolve, reject) => {
      const fail = (message: string, cause?: unknown) => reject(this.failure(host, path, consumerId, message, cause));
      let timedOut = false;
      const request = client.request(
        host.toUrl() + path,
        {
          method: 'POST',
          agent: this.agents[host.protocol],
          headers,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let length = 0;
          response.on('data', (chunk: Buffer) => {
            length += chunk.length;
            if (length > MAX_REPLY_BYTES) request.destroy(new Error(`reply longer than ${MAX_REPLY_BYTES} bytes`));
            else chunks.push(chunk);
          });
          response.on('error', (error) => fail(timedOut ? `no reply within ${this.timeoutMs} ms` : error.message, error));
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            if (status >= 400) return fail(`HTTP ${status}`);
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch (error) {
              fail(`HTTP ${status} with a reply that is not JSON`, error);
            }
          });
        },
      );
      // One timer and one listener per push, both released when it ends: `AbortSignal.timeout` + `AbortSignal.any`
      // cost ~25 µs a push and keep their timers alive for the whole timeout, which adds up at thousands of pushes
      // a second.
      const timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new Error(`no reply within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      const abort = () => request.destroy(new Error('delivery aborted: the subscription is stopping'));
      signal.addEventListener('abort', abort, { once: true });
      request.once('close', () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
      });
      request.on('error', (error) => fail(timedOut ? `no reply within ${this.timeoutMs} ms` : error.message, error));
      if (signal.aborted) abort();
      request.end(body);
    });
  }

  private failure(host: Host, path: string, consumerId: string, message: string, cause?: unknown): DeliveryFailedError {
    return new DeliveryFailedError(`Delivery to ${consumerId} at ${host.toUrl()}${path} failed: ${message}`, { cause });
  }

  /** Drops idle keep-alive connections. */
  close(): void {
    this.agents.HTTP.destroy();
    this.agents.HTTPS.destroy();
  }
}
