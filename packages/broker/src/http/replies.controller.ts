import { isReplyAddress, MmmqValidationError, parseReply, type Reply, REPLIES_PATH } from '@mmmq/core';
import { Controller, HttpCode, HttpStatus, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { JsonBodyReader } from './json-body.reader';
import { NackExceptionFilter } from './nack-exception.filter';
import { ReadsRawBody } from './reads-raw-body.decorator';
import { RequestWithRawBody } from './raw-body.reader';
import { BrokerAccessGuard } from './broker-access.guard';
import { RequiresRole } from '../security/requires-role.decorator';
import { REPLY_FETCH_MAX_WAIT_MS, ReplyRelay } from '../replies/reply-relay';

/** Express' reply, or fastify's (`raw`): where a collection learns that its client went away. */
interface ClosableReply {
  raw?: { once(event: 'close', listener: () => void): unknown };
  once?(event: 'close', listener: () => void): unknown;
}

/**
 * The reply relay (docs/producer.md#request-reply): a listener posts its reply (role `consume`, as it is a
 * consumer), and the requester collects the replies of its inbox with a long poll (role `publish`, as it published
 * the request). An inbox name is a random UUID that only the requester and the request's listeners know.
 */
@Controller(REPLIES_PATH)
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
export class RepliesController {
  constructor(
    private readonly relay: ReplyRelay,
    private readonly body: JsonBodyReader,
  ) {}

  /** `{"acknowledgement":"ACK","relayed":true}`; `relayed: false` when the reply was dropped (inbox full). */
  @Post()
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  @RequiresRole('consume')
  async reply(@Req() request: RequestWithRawBody): Promise<{ acknowledgement: 'ACK'; relayed: boolean }> {
    const reply = parseReply(await this.body.read(request));
    return { acknowledgement: 'ACK', relayed: this.relay.relay(reply) };
  }

  /** `{"replies":[…]}`: what the inbox holds, waiting up to `waitMs` (default 0) for a first one. */
  @Post(':inbox/fetch')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  @RequiresRole('publish')
  async fetch(
    @Param('inbox') inbox: string,
    @Req() request: RequestWithRawBody,
    @Res({ passthrough: true }) response: ClosableReply,
  ): Promise<{ replies: Reply[] }> {
    if (!isReplyAddress(inbox)) throw new MmmqValidationError(`Reply inbox ${JSON.stringify(inbox)} must match [A-Za-z0-9._:-]{1,128}`);
    const waitMs = parseWaitMs(await this.body.read(request));
    const gone = new AbortController();
    (response.raw ?? response).once?.('close', () => gone.abort('request closed'));
    return { replies: await this.relay.collect(inbox, waitMs, gone.signal) };
  }
}

/** `waitMs` of a reply fetch's body. @throws MmmqValidationError naming the problem */
export function parseWaitMs(body: unknown): number {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MmmqValidationError(
      `A reply fetch must be a JSON object such as {"waitMs":20000}, got ${Array.isArray(body) ? 'an array' : typeof body}`,
    );
  }
  const { waitMs = 0, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new MmmqValidationError(`A reply fetch has unknown field(s) ${unknown.join(', ')}; allowed is waitMs`);
  if (typeof waitMs !== 'number' || !Number.isInteger(waitMs) || waitMs < 0 || waitMs > REPLY_FETCH_MAX_WAIT_MS) {
    throw new MmmqValidationError(`waitMs must be an integer from 0 to ${REPLY_FETCH_MAX_WAIT_MS}, got ${JSON.stringify(waitMs)}`);
  }
  return waitMs;
}
