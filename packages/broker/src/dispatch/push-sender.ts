import http from 'node:http';
import https from 'node:https';
import { CONSUMER_ID_HEADER, Host, isConsumerAcknowledgement, ConsumerAcknowledgement, MESSAGES_PATH, MmmqError } from '@mmmq/core';

/** A push that gets no complete reply within this time counts as failed (and is retried with backoff). */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 30_000;
/** A consumer's reply is a small JSON acknowledgement; anything longer is not one. */
const MAX_REPLY_BYTES = 64 * 1024;

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

  send(host: Host, consumerId: string, body: Buffer, signal: AbortSignal): Promise<ConsumerAcknowledgement> {
    const url = `${host.toUrl()}${MESSAGES_PATH}`;
    const client = host.protocol === 'HTTPS' ? https : http;
    return new Promise((resolve, reject) => {
      const fail = (message: string, cause?: unknown) =>
        reject(new DeliveryFailedError(`Delivery to ${consumerId} at ${url} failed: ${message}`, { cause }));
      const request = client.request(
        url,
        {
          method: 'POST',
          agent: this.agents[host.protocol],
          signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            [CONSUMER_ID_HEADER]: consumerId,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let length = 0;
          response.on('data', (chunk: Buffer) => {
            length += chunk.length;
            if (length > MAX_REPLY_BYTES) request.destroy(new Error(`reply longer than ${MAX_REPLY_BYTES} bytes`));
            else chunks.push(chunk);
          });
          response.on('error', (error) => fail(error.message, error));
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            if (status >= 400) return fail(`HTTP ${status}`);
            const reply = parseReply(Buffer.concat(chunks));
            if (!reply) return fail(`HTTP ${status} without a {"acknowledgement":"ACK"|"NACK"} body`);
            resolve(reply);
          });
        },
      );
      request.on('error', (error) => {
        const timedOut = error.name === 'AbortError' && !signal.aborted;
        fail(timedOut ? `no reply within ${this.timeoutMs} ms` : error.message, error);
      });
      request.end(body);
    });
  }

  /** Drops idle keep-alive connections. */
  close(): void {
    this.agents.HTTP.destroy();
    this.agents.HTTPS.destroy();
  }
}

function parseReply(body: Buffer): ConsumerAcknowledgement | undefined {
  try {
    const reply: unknown = JSON.parse(body.toString('utf8'));
    return isConsumerAcknowledgement(reply) ? reply : undefined;
  } catch {
    return undefined;
  }
}
