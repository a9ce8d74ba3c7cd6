import { CONSUMERS_PATH, PublishedMessage, PublishRequest, TlsClientOptions, TRANSACTIONS_PATH } from '@mmmq/core';
import { BrokerRequestError } from '../errors/broker-request.error';
import type { ConsumerDelivery } from '../listener/consumer-delivery';
import { parseDeliveryRequest } from '../handling/delivery-request.parser';
import { JsonHttpClient } from '../support/json-http-client';

/** `POST /mmmq/consumers/{consumerId}/fetch`: what to take from the broker. */
export interface FetchRequest {
  /** 1 to 1000. */
  max: number;
  /** How long the broker may wait for a first message (long poll), 0 to 60 000. */
  waitMs: number;
  /** Who holds the leases. */
  member: string;
  /** true: the broker settles the messages before answering (ack mode `none`). */
  autoAck: boolean;
  /** Lease length; the dispatcher's `ackTimeoutMs` when absent. */
  ackTimeoutMs?: number;
}

/** What `ack`, `nack` and `terminate` answer: how many were settled, and which leases were no longer held. */
export interface SettleResult {
  settled: number;
  lost: string[];
}

/** A fetched message always carries its lease, unless the broker settled it on sending (`autoAck`). */
export type PulledMessage = ConsumerDelivery;

/**
 * The broker's pull API (`/mmmq/consumers/{consumerId}/…`, docs/http-api.md) over keep-alive connections:
 * one call, one request, no retries (the pull loop and the ack batcher decide about those).
 * Failures are `BrokerRequestError`s, `retriable` when the broker was unreachable, timed out, or answered 5xx or 429.
 */
export class PullClient {
  private readonly http: JsonHttpClient;

  /** @param timeoutMs time limit of one request; a fetch may take its `waitMs` longer */
  constructor(
    private readonly brokerUrl: string,
    private readonly timeoutMs: number,
    { token, tls }: { token?: string; tls?: TlsClientOptions } = {},
  ) {
    this.http = new JsonHttpClient(brokerUrl, { token, tls });
  }

  /** Long-polls for messages; `signal` ends the wait early (the promise then rejects). */
  async fetch(consumerId: string, request: FetchRequest, signal?: AbortSignal): Promise<PulledMessage[]> {
    const body = await this.post(consumerId, 'fetch', request, this.timeoutMs + request.waitMs, signal);
    const messages = (body as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(messages)) throw this.malformed(consumerId, 'fetch', 'has no "messages" array');
    return messages.map((message: unknown, i) => {
      let parsed: PulledMessage;
      try {
        parsed = parseDeliveryRequest(message);
      } catch (error) {
        throw this.malformed(consumerId, 'fetch', `messages[${i}]: ${(error as Error).message}`);
      }
      if (parsed.lease === undefined && !request.autoAck) throw this.malformed(consumerId, 'fetch', `messages[${i}] has no lease`);
      return parsed;
    });
  }

  ack(consumerId: string, leases: string[]): Promise<SettleResult> {
    return this.settle(consumerId, 'ack', { leases });
  }

  nack(consumerId: string, leases: string[], delayMs?: number): Promise<SettleResult> {
    return this.settle(consumerId, 'nack', { leases, ...(delayMs === undefined ? {} : { delayMs }) });
  }

  terminate(consumerId: string, leases: string[], reason?: string): Promise<SettleResult> {
    return this.settle(consumerId, 'terminate', { leases, ...(reason === undefined ? {} : { reason }) });
  }

  async extend(consumerId: string, leases: string[], ackTimeoutMs?: number): Promise<{ extended: number; lost: string[] }> {
    const body = await this.post(consumerId, 'extend', { leases, ...(ackTimeoutMs === undefined ? {} : { ackTimeoutMs }) });
    const { extended, lost } = (body ?? {}) as { extended?: unknown; lost?: unknown };
    if (!Number.isSafeInteger(extended) || !isStringArray(lost))
      throw this.malformed(consumerId, 'extend', 'is not {"extended": n, "lost": [...]}');
    return { extended: extended as number, lost };
  }

  /** Asks the broker to redeliver now every message `member` holds unsettled; `leave`: the member is going away. */
  async recover(consumerId: string, member: string, leave = false): Promise<number> {
    const body = leave ? { member, leave } : { member };
    const released = ((await this.post(consumerId, 'recover', body)) as { released?: unknown } | null)?.released;
    if (!Number.isSafeInteger(released)) throw this.malformed(consumerId, 'recover', 'is not {"released": n}');
    return released as number;
  }

  /**
   * `POST /mmmq/transactions`: settles the leased inputs and publishes `messages` in one commit. Resolves with where
   * the outputs were stored once all of it is durable; a 409 (an input's lease is no longer held: nothing was
   * published) is a BrokerRequestError with `status` 409.
   */
  async transaction(consumerId: string, leases: string[], messages: readonly PublishRequest[]): Promise<PublishedMessage[]> {
    const body = await this.request(TRANSACTIONS_PATH, { consumerId, settle: leases, messages }, this.timeoutMs);
    const published = (body as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(published) || published.length !== messages.length) {
      throw new BrokerRequestError(`The broker's answer to POST ${TRANSACTIONS_PATH} has no "messages" for the outputs`, false);
    }
    return published as PublishedMessage[];
  }

  /** Drops idle keep-alive connections. */
  close(): void {
    this.http.close();
  }

  private async settle(consumerId: string, action: string, body: object): Promise<SettleResult> {
    const { settled, lost } = ((await this.post(consumerId, action, body)) ?? {}) as { settled?: unknown; lost?: unknown };
    if (!Number.isSafeInteger(settled) || !isStringArray(lost))
      throw this.malformed(consumerId, action, 'is not {"settled": n, "lost": [...]}');
    return { settled: settled as number, lost };
  }

  private post(consumerId: string, action: string, data: object, timeout = this.timeoutMs, signal?: AbortSignal): Promise<unknown> {
    return this.request(`${CONSUMERS_PATH}/${encodeURIComponent(consumerId)}/${action}`, data, timeout, signal);
  }

  private async request(url: string, data: object, timeout: number, signal?: AbortSignal): Promise<unknown> {
    // No answer (unreachable, reset, timed out, aborted): a retriable BrokerRequestError.
    const response = await this.http.post(url, data, timeout, signal);
    if (response.status === 200) return response.data;
    const message = (response.data as { message?: unknown } | null | undefined)?.message;
    const detail = typeof message === 'string' ? `: ${message}` : '';
    const roles = url === TRANSACTIONS_PATH ? 'the consume and publish roles' : 'the consume role';
    const hint = response.status === 401 || response.status === 403 ? ` (the consumer option token needs ${roles})` : '';
    const retriable = response.status >= 500 || response.status === 429;
    throw new BrokerRequestError(`POST ${url} on ${this.brokerUrl} answered HTTP ${response.status}${detail}${hint}`, retriable, {
      status: response.status,
    });
  }

  private malformed(consumerId: string, action: string, problem: string): BrokerRequestError {
    return new BrokerRequestError(`The broker's answer to POST /mmmq/consumers/${consumerId}/${action} ${problem}`, false);
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
