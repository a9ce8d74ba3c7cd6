import { MESSAGES_PATH, PublishBatchResponse, PublishResponse } from '@mmmq/core';
import { Controller, HttpCode, HttpStatus, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import { PublishIntake } from '../publish/publish-intake';
import { PublishRequestParser } from '../publish/publish-request.parser';
import { RawBodyReader, RequestWithRawBody } from './raw-body.reader';
import { BrokerAccessGuard } from './broker-access.guard';
import { Caller } from '../security/caller.decorator';
import { Principal } from '../security/principal';
import { RequiresRole } from '../security/requires-role.decorator';
import { NackExceptionFilter } from './nack-exception.filter';
import { PublishEndpoint } from './publish-endpoint';
import { ReadsRawBody } from './reads-raw-body.decorator';

/** Path of the batch endpoint, relative to {@link MESSAGES_PATH}. */
const BATCH_PATH = 'batch';

/**
 * The publish endpoints. Both answer once every message they accepted is durable — or, for a nonPersistent publish,
 * once it has its place in the commit order (docs/destinations.md#delivery-modes).
 *
 * `PublishRoutes` serves `POST /mmmq/messages` and `/batch` at the level of Node's server, before the framework:
 * these routes answer what it hands on (a global prefix of the host application, a path spelled another way, a
 * push of a consumer in the same application whose listener is not here), with the same rules.
 */
@Controller(MESSAGES_PATH)
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('publish')
export class MessagesController {
  private readonly endpoint: PublishEndpoint;

  constructor(
    private readonly reader: RawBodyReader,
    parser: PublishRequestParser,
    intake: PublishIntake,
  ) {
    this.endpoint = new PublishEndpoint(parser, intake);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async publish(@Req() request: RequestWithRawBody, @Caller() caller: Principal): Promise<PublishResponse> {
    return this.endpoint.publish(await this.reader.read(request), caller);
  }

  @Post(BATCH_PATH)
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async publishBatch(@Req() request: RequestWithRawBody, @Caller() caller: Principal): Promise<PublishBatchResponse> {
    return this.endpoint.publishBatch(await this.reader.read(request), caller);
  }
}
