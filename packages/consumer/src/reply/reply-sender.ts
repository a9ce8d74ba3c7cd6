import { InProcessBrokerTransport, REPLIES_PATH, type Reply, ReplyInboxes } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { BrokerRequestError } from '../errors/broker-request.error';
import { JsonHttpClient } from '../support/json-http-client';
import type { ResolvedBrokerAccess } from '../config/resolved-consumer-options';

/**
 * Where a listener's replies go when their requester is not in this process: the broker of this application's
 * reply relay (listeners that receive in process), the relay of the broker at the `broker` option over HTTP, or
 * nowhere (another transport, or a push consumer without `broker`): a requester of this process is reached either way.
 */
export type ReplyRelayRoute =
  | { kind: 'in-process'; broker: InProcessBrokerTransport }
  | { kind: 'http'; access: ResolvedBrokerAccess }
  | { kind: 'none'; reason: string };

/**
 * Sends a listener's reply to its request's inbox: directly to a requester of this process (no broker round trip),
 * else through the broker's reply relay. A reply the relay drops (its requester stopped collecting) is not an error:
 * the requester gave up on it. A reply that could not be handed to the relay is: the caller NACKs the request, so
 * it is handled, and answered, again.
 */
export class ReplySender {
  private readonly logger = new Logger('MmmqConsumer');
  private readonly client?: JsonHttpClient;
  private warnedNoRoute = false;

  constructor(private route: ReplyRelayRoute) {
    if (route.kind === 'http') this.client = new JsonHttpClient(route.access.url, route.access);
  }

  /** Relays through the application's own broker from now on, unless replies go to a broker over HTTP. */
  relayInProcess(broker: InProcessBrokerTransport): void {
    if (this.route.kind === 'none') this.route = { kind: 'in-process', broker };
  }

  /** Hands `reply` to a requester of this process; false when its requester is elsewhere. */
  deliverInProcess(reply: Reply): boolean {
    return ReplyInboxes.deliver(reply);
  }

  /** @throws BrokerRequestError when the relay could not be reached or refused the reply */
  async send(reply: Reply): Promise<void> {
    if (ReplyInboxes.deliver(reply)) return;
    const { route } = this;
    if (route.kind === 'in-process') {
      if (!route.broker.relayReply(reply)) this.dropped(reply);
      return;
    }
    if (route.kind === 'none' || this.client === undefined) {
      if (!this.warnedNoRoute) {
        this.warnedNoRoute = true;
        this.logger.warn(
          `Cannot send replies to requesters in other processes: ${route.kind === 'none' ? route.reason : ''}; they are dropped`,
        );
      }
      return;
    }
    const response = await this.client.post(REPLIES_PATH, reply, route.kind === 'http' ? route.access.timeoutMs : 0);
    if (response.status !== 200) {
      const retriable = response.status >= 500 || response.status === 429;
      throw new BrokerRequestError(`the broker's reply relay answered ${response.status}`, retriable, { status: response.status });
    }
    if ((response.data as { relayed?: unknown } | undefined)?.relayed === false) this.dropped(reply);
  }

  close(): void {
    this.client?.close();
  }

  onApplicationShutdown(): void {
    this.close();
  }

  private dropped(reply: Reply): void {
    this.logger.debug(`The reply to request ${reply.correlationId} was dropped by the broker's relay: its inbox is full or gone`);
  }
}
