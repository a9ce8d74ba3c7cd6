import { Acknowledgement, MESSAGES_PATH, PublishBatchResponse, PublishResponse } from '@mmmq/core';
import { Controller, HttpCode, HttpStatus, Post, Req, UseFilters } from '@nestjs/common';
import { FrontDispatcher } from '../publish/front-dispatcher';
import { PublishRequestParser } from '../publish/publish-request.parser';
import { RawBodyReader, RequestWithRawBody } from '../publish/raw-body.reader';
import { NackExceptionFilter } from './nack-exception.filter';

/** Path of the batch endpoint, relative to {@link MESSAGES_PATH}. */
const BATCH_PATH = 'batch';

/** The publish endpoints. Both answer only once every message they accepted is durable. */
@Controller(MESSAGES_PATH)
@UseFilters(NackExceptionFilter)
export class MessagesController {
  constructor(
    private readonly reader: RawBodyReader,
    private readonly parser: PublishRequestParser,
    private readonly dispatcher: FrontDispatcher,
  ) {}

  @Post()
  @HttpCode(HttpStatus.OK)
  async publish(@Req() request: RequestWithRawBody): Promise<PublishResponse> {
    const message = this.parser.parseSingle(await this.reader.read(request));
    const published = await this.dispatcher.publish(message);
    return { acknowledgement: Acknowledgement.ACK, ...published };
  }

  @Post(BATCH_PATH)
  @HttpCode(HttpStatus.OK)
  async publishBatch(@Req() request: RequestWithRawBody): Promise<PublishBatchResponse> {
    const messages = this.parser.parseBatch(await this.reader.read(request));
    return { acknowledgement: Acknowledgement.ACK, messages: await this.dispatcher.publishBatch(messages) };
  }
}
