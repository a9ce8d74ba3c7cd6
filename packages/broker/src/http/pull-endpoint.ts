import { parseConsumerId } from '../dispatch/dispatcher-definition';
import { parseAckRequest, parseFetchRequest, parseSettleRequest } from '../pull/pull-requests';
import type { PullService, SettleResult } from '../pull/pull-service';

/** Why a fetch's client-gone signal aborts (the request closed: answered, or the client went away). */
export const CLIENT_GONE = 'request closed';

/** Reads the request's JSON body; called once the consumer id in the path is known to be valid. */
export type BodyOf = () => Promise<unknown>;

/**
 * What the pull routes fetch, ack, nack and extend do once the consumer is admitted: the consumer id in the path is
 * checked first (400), then the body is read and parsed. One implementation for the Nest routes
 * (`ConsumersController`) and the routes served at the level of Node's server (`PullRoutes`).
 */
export class PullEndpoint {
  constructor(private readonly pull: PullService) {}

  /** `{"messages":[…]}` as encoded bytes, each with its `lease`; waits up to `waitMs` for the first (long polling). */
  async fetch(id: string, body: BodyOf, clientGone: AbortSignal): Promise<Buffer> {
    const consumerId = parseConsumerId(id);
    return this.pull.fetch(consumerId, parseFetchRequest(await body()), clientGone);
  }

  async ack(id: string, body: BodyOf): Promise<SettleResult> {
    const consumerId = parseConsumerId(id);
    return this.pull.ack(consumerId, parseAckRequest(await body()));
  }

  async nack(id: string, body: BodyOf): Promise<SettleResult> {
    const consumerId = parseConsumerId(id);
    return this.pull.nack(consumerId, parseSettleRequest(await body(), 'delayMs'));
  }

  async extend(id: string, body: BodyOf): Promise<ReturnType<PullService['extend']>> {
    const consumerId = parseConsumerId(id);
    return this.pull.extend(consumerId, parseSettleRequest(await body(), 'ackTimeoutMs'));
  }
}
