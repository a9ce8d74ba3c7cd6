import http from 'node:http';
import https from 'node:https';
import { BacklogOverflow, bearerAuthorization, DISPATCHERS_PATH, MemberLimits, TlsClientOptions } from '@mmmq/core';
import axios, { AxiosInstance, AxiosResponse } from 'axios';
import { BrokerRequestError } from '../errors/broker-request.error';
import type { StartFrom } from '../config/mmmq-consumer.options';

/** A dispatcher as the broker's API shows it; fields this consumer does not use are ignored. */
export interface DispatcherJson {
  consumerId: string;
  /** Absent on a pull-only dispatcher of a broker with leases (docs/delivery.md § Dispatchers), which shows `hosts` instead. */
  host?: unknown;
  /** Brokers with leases: every push member's URL (empty for pull only). */
  hosts?: unknown[];
  pattern: string;
  /** Brokers with leases: every pattern (`pattern` is then the first). */
  patterns?: string[];
  startFrom?: StartFrom;
  /** Absent on brokers that predate batched pushes, which means 1. */
  batchSize?: number;
  /** Absent on brokers that predate pipelined pushes, which means 1. */
  maxInFlight?: number;
  /** Shown only when false (independent pushes); absent means true. */
  ordered?: boolean;
  /** True when the pushes are signed; the broker never shows the secret. */
  signed?: boolean;
  /** Absent when every message is delivered. */
  selector?: string;
  /** Absent without a backlog limit (and on brokers that predate them). */
  maxBacklog?: number;
  backlogOverflow?: BacklogOverflow;
  /** Absent on brokers that predate them. */
  exclusive?: boolean;
  /** Absent without the limit (and on brokers that predate it). */
  maxActiveMembers?: number;
  maxMembers?: number;
}

/** A listener's backlog limit as a dispatcher's fields; absent (none) means no limit, and a PUT removes one. */
export interface BacklogFields {
  maxBacklog?: number;
  backlogOverflow?: BacklogOverflow;
}

export interface DispatcherChange extends BacklogFields, MemberLimits {
  host?: string;
  /** Every push member, for a PUT that changes the settings and keeps the group's other hosts. */
  hosts?: string[];
  pattern: string;
  startFrom?: StartFrom;
  batchSize: number;
  maxInFlight: number;
  /** False: independent, unnumbered pushes (docs/delivery.md#unordered-pushes); absent: the broker's default, true. */
  ordered?: boolean;
  /** The `whsec_…` secret the broker signs the pushes with; absent for unsigned pushes. */
  signingSecret?: string;
  /** Absent: every message (a PUT without it removes the dispatcher's selector). */
  selector?: string;
}

/** A dispatcher for pull members: no host of its own; `hosts` keeps the push members another instance added. */
export interface PullDispatcherChange extends BacklogFields, MemberLimits {
  pattern: string;
  startFrom?: StartFrom;
  selector?: string;
  hosts?: unknown[];
  batchSize?: number;
  maxInFlight?: number;
  ordered?: boolean;
}

/** The broker's `/mmmq/dispatchers` API over keep-alive connections; one call, one request, no retries. */
export class DispatcherApiClient {
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent: https.Agent;
  private readonly http: AxiosInstance;

  /**
   * @param access.token sent as `Authorization: Bearer <token>` with every request
   * @param access.tls certificates to trust for an `https://` broker
   * @param access.signal once aborted, a request in flight fails at once (as a retriable `BrokerRequestError`) instead
   *   of running to its timeout, and so does every later one
   */
  constructor(
    private readonly brokerUrl: string,
    timeoutMs: number,
    { token, tls, signal }: { token?: string; tls?: TlsClientOptions; signal?: AbortSignal } = {},
  ) {
    this.httpsAgent = new https.Agent({ keepAlive: true, ca: tls?.ca });
    this.http = axios.create({
      baseURL: brokerUrl,
      timeout: timeoutMs,
      signal,
      httpAgent: this.httpAgent,
      httpsAgent: this.httpsAgent,
      // Every status is inspected here, so that the error says what the broker answered.
      validateStatus: () => true,
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: bearerAuthorization(token) }) },
    });
  }

  /** @returns the dispatcher, or undefined if the broker has none with this id */
  async find(consumerId: string): Promise<DispatcherJson | undefined> {
    const response = await this.send('GET', path(consumerId));
    if (response.status === 404) return undefined;
    return this.expect(response, 200, `GET ${path(consumerId)}`) as DispatcherJson;
  }

  /**
   * @param definition a push dispatcher (with `host`), or a pull-only one (without)
   * @returns false if a dispatcher with this id and other settings appeared meanwhile (409)
   */
  async create(definition: (DispatcherChange | PullDispatcherChange) & { consumerId: string }): Promise<boolean> {
    const response = await this.send('POST', DISPATCHERS_PATH, definition);
    if (response.status === 409) return false;
    // 200: a broker with leases already had this consumer id with the same settings (another member's).
    this.expect(response, response.status === 200 ? 200 : 201, 'POST /mmmq/dispatchers');
    return true;
  }

  async replace(consumerId: string, change: DispatcherChange | PullDispatcherChange): Promise<void> {
    this.expect(await this.send('PUT', path(consumerId), change), 200, `PUT ${path(consumerId)}`);
  }

  /** Removes one push host from a consumer's members; one that is not (any more) a member is fine too. */
  async removeHost(consumerId: string, hostUrl: string): Promise<void> {
    const url = `${path(consumerId)}/hosts/${encodeURIComponent(hostUrl)}`;
    const response = await this.send('DELETE', url);
    if (response.status !== 404) this.expect(response, 204, `DELETE ${url}`);
  }

  /** Drops idle keep-alive connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private async send(method: string, url: string, data?: unknown): Promise<AxiosResponse> {
    try {
      return await this.http.request({ method, url, data });
    } catch (error) {
      const { message, code } = error as { message?: string; code?: string };
      // Not the axios error itself: it holds the request, and with it the signing secret, for any log to print.
      const cause = Object.assign(new Error(message || code), { code });
      throw new BrokerRequestError(`${method} ${this.brokerUrl}${url} failed: ${message || code}`, true, { cause });
    }
  }

  private expect(response: AxiosResponse, status: number, request: string): unknown {
    if (response.status === status) return response.data;
    const message = typeof response.data?.message === 'string' ? `: ${response.data.message}` : '';
    const detail = response.status === 401 ? `${message} (the consumer option token)` : message;
    const retriable = response.status >= 500 || response.status === 429;
    throw new BrokerRequestError(`${request} on ${this.brokerUrl} answered HTTP ${response.status}${detail}`, retriable);
  }
}

function path(consumerId: string): string {
  return `${DISPATCHERS_PATH}/${encodeURIComponent(consumerId)}`;
}
