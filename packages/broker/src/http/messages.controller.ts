import { Acknowledgement, MESSAGES_PATH, PublishBatchResponse, PublishResponse } from '@mmmq/core';
import { Controller, HttpCode, HttpStatus, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import { PublishIntake } from '../publish/publish-intake';
import { PublishRequestParser } from '../publish/publish-request.parser';
import { RawBodyReader, RequestWithRawBody } from './raw-body.reader';
import { BrokerAccessGuard } from './broker-access.guard';
import { Caller } from '../security/caller.decorator';
import { Principal } from '../security/principal';
import { RequiresRole } from '../security/requires-role.decorator';
import { NackExceptionFilter } from './nack-exception.filter';
import { ReadsRawBody } from './reads-raw-body.decorator';

/** Path of the batch endpoint, relative to {@link MESSAGES_PATH}. */
const BATCH_PATH = 'batch';

/**
 * The publish endpoints. Both answer once every message they accepted is durable — or, for a nonPersistent publish,
 * once it has its place in the commit order (docs/destinations.md#delivery-modes).
 */
@Controller(MESSAGES_PATH)
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('publish')
export class MessagesController {
  constructor(
    private readonly reader: RawBodyReader,
    private readonly parser: PublishRequestParser,
    private readonly intake: PublishIntake,
  ) {}

  @Post()
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async publish(@Req() request: RequestWithRawBody, @Caller() caller: Principal): Promise<PublishResponse> {
    const message = this.parser.parseSingle(await this.reader.read(request));
    caller.assertMayPublish([message.topic]);
    const published = await this.intake.publish(message);
    return { acknowledgement: Acknowledgement.ACK, ...published };
  }

  @Post(BATCH_PATH)
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async publishBatch(@Req() request: RequestWithRawBody, @Caller() caller: Principal): Promise<PublishBatchResponse> {
    const messages = this.parser.parseBatch(await this.reader.read(request));
    caller.assertMayPublish(messages.map((message) => message.topic));
    return { acknowledgement: Acknowledgement.ACK, messages: await this.intake.publishBatch(messages) };
  }
}
