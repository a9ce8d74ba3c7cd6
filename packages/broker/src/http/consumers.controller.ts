import { CONSUMERS_PATH } from '@mmmq/core';
import { Controller, HttpCode, HttpStatus, Param, Post, Req, Res, StreamableFile, UseFilters, UseGuards } from '@nestjs/common';
import { parseConsumerId } from '../dispatch/dispatcher-definition';
import { RequestWithRawBody } from './raw-body.reader';
import { parseRecoverRequest, parseSettleRequest } from '../pull/pull-requests';
import { PullService, SettleResult } from '../pull/pull-service';
import { parseSeekRequest } from '../seek/seek-request';
import { SeekResult, SeekService } from '../seek/seek.service';
import { BrokerAccessGuard } from './broker-access.guard';
import { RequiresRole } from '../security/requires-role.decorator';
import { JsonBodyReader } from './json-body.reader';
import { NackExceptionFilter } from './nack-exception.filter';
import { CLIENT_GONE, PullEndpoint } from './pull-endpoint';
import { ReadsRawBody } from './reads-raw-body.decorator';

/** Express' reply, or fastify's (`raw`): where a long poll learns that its client went away. */
interface ClosableReply {
  raw?: { once(event: 'close', listener: () => void): unknown };
  once?(event: 'close', listener: () => void): unknown;
}

/**
 * The pull API (docs/http-api.md): fetch with leases, then ack / nack / extend / terminate, recover, and seek.
 * `PullRoutes` serves fetch, ack, nack and extend at the level of Node's server, before the framework, by the same
 * rules; these routes answer what it hands on (a global prefix of the host application, a path spelled another way).
 */
@Controller(`${CONSUMERS_PATH}/:consumerId`)
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('consume')
export class ConsumersController {
  private readonly endpoint: PullEndpoint;

  constructor(
    private readonly pull: PullService,
    private readonly body: JsonBodyReader,
    private readonly seeks: SeekService,
  ) {
    this.endpoint = new PullEndpoint(pull);
  }

  /** `{"messages":[…]}`, each with its `lease`; waits up to `waitMs` for the first (long polling). */
  @Post('fetch')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async fetch(
    @Param('consumerId') id: string,
    @Req() request: RequestWithRawBody,
    @Res({ passthrough: true }) reply: ClosableReply,
  ): Promise<StreamableFile> {
    const gone = new AbortController();
    // Every answered request closes too: a reason of our own spares building a DOMException (with its stack) each time.
    (reply.raw ?? reply).once?.('close', () => gone.abort(CLIENT_GONE));
    // The messages' content goes out as the bytes that were published, not through a JSON serializer.
    const messages = await this.endpoint.fetch(id, () => this.body.read(request), gone.signal);
    return new StreamableFile(messages, { type: 'application/json' });
  }

  @Post('ack')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async ack(@Param('consumerId') id: string, @Req() request: RequestWithRawBody): Promise<SettleResult> {
    return this.endpoint.ack(id, () => this.body.read(request));
  }

  @Post('nack')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async nack(@Param('consumerId') id: string, @Req() request: RequestWithRawBody): Promise<SettleResult> {
    return this.endpoint.nack(id, () => this.body.read(request));
  }

  @Post('extend')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async extend(@Param('consumerId') id: string, @Req() request: RequestWithRawBody) {
    return this.endpoint.extend(id, () => this.body.read(request));
  }

  @Post('terminate')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async terminate(@Param('consumerId') id: string, @Req() request: RequestWithRawBody): Promise<SettleResult> {
    return this.pull.terminate(parseConsumerId(id), parseSettleRequest(await this.body.read(request), 'reason'));
  }

  /** Moves the consumer's subscriptions (docs/http-api.md, "Seek"); `dryRun` only counts. */
  @Post('seek')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async seek(@Param('consumerId') id: string, @Req() request: RequestWithRawBody): Promise<SeekResult> {
    return this.seeks.seek(parseConsumerId(id), parseSeekRequest(await this.body.read(request)));
  }

  @Post('recover')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async recover(@Param('consumerId') id: string, @Req() request: RequestWithRawBody) {
    const { member, leave } = parseRecoverRequest(await this.body.read(request));
    return this.pull.recover(parseConsumerId(id), member, leave);
  }
}
