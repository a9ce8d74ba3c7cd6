import type { DeliveryRequest } from '@mmmq/core';
import { BrokerApp } from '../http/broker-app.fixture';
import { waitFor } from '@mmmq/test-support';

/** A message as a fetch answers it: a delivery body with its lease. */
export type Fetched = DeliveryRequest & { lease: string };

/** The pull API of one consumer id, as a client in another language would use it: plain HTTP and JSON. */
export class PullClient {
  constructor(
    private readonly broker: BrokerApp,
    readonly consumerId: string,
  ) {}

  /** Registers the consumer without a host (pull only). */
  async register(settings: Record<string, unknown> = {}): Promise<void> {
    const response = await this.broker.request('POST', '/mmmq/dispatchers', {
      consumerId: this.consumerId,
      pattern: 'order.*',
      ...settings,
    });
    if (response.status !== 201 && response.status !== 200)
      throw new Error(`register: ${response.status} ${JSON.stringify(response.body)}`);
  }

  async fetch(request: Record<string, unknown> = {}): Promise<Fetched[]> {
    const response = await this.call('fetch', request);
    return response.messages as Fetched[];
  }

  async ack(leases: unknown[]): Promise<{ settled: number; lost: unknown[] }> {
    return this.call('ack', { leases });
  }

  async nack(leases: unknown[], delayMs?: number): Promise<{ settled: number; lost: unknown[] }> {
    return this.call('nack', { leases, delayMs });
  }

  async extend(leases: unknown[], ackTimeoutMs?: number): Promise<{ extended: number; lost: unknown[] }> {
    return this.call('extend', { leases, ackTimeoutMs });
  }

  async terminate(leases: unknown[], reason?: string): Promise<{ settled: number; lost: unknown[] }> {
    return this.call('terminate', { leases, reason });
  }

  /** A cumulative ack: every lease of `topic` at or below `offset` (of `member`, when given). */
  async ackUpTo(topic: string, offset: number, member?: string): Promise<{ settled: number; lost: unknown[] }> {
    return this.call('ack', { upTo: { topic, offset, ...(member === undefined ? {} : { member }) } });
  }

  /** `POST …/seek`, answered whatever its status (tests check refusals too). */
  seek(body: Record<string, unknown>): Promise<{ status: number; body: any }> {
    return this.broker.request('POST', `/mmmq/consumers/${this.consumerId}/seek`, body);
  }

  async recover(member: string): Promise<{ released: number }> {
    return this.call('recover', { member });
  }

  // The answers are plain JSON whose shape each test checks.
  private async call(action: string, body: Record<string, unknown>): Promise<any> {
    const response = await this.broker.request('POST', `/mmmq/consumers/${this.consumerId}/${action}`, body);
    if (response.status !== 200) throw new Error(`${action}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  }
}

/** Polls `condition` until it holds, failing with `what` after `deadlineMs`. */
export const waitUntil = (condition: () => boolean | Promise<boolean>, what: string, deadlineMs = 10_000): Promise<void> =>
  waitFor(condition, { message: what, deadlineMs });
