import { Controller, HttpCode, HttpStatus, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import { RequestWithRawBody } from './raw-body.reader';
import { CancelledMessage, cancelRequest } from '../publish/scheduled-cancellation';
import { ScheduledCanceller } from '../publish/scheduled-canceller';
import { BrokerAccessGuard } from './broker-access.guard';
import { Caller } from '../security/caller.decorator';
import { Principal } from '../security/principal';
import { RequiresRole } from '../security/requires-role.decorator';
import { JsonBodyReader } from './json-body.reader';
import { NackExceptionFilter } from './nack-exception.filter';
import { ReadsRawBody } from './reads-raw-body.decorator';

/** Scheduled messages (docs/delivery.md#scheduled-messages): cancelling one before its time. */
@Controller('mmmq/scheduled')
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('publish')
export class ScheduledController {
  constructor(
    private readonly canceller: ScheduledCanceller,
    private readonly body: JsonBodyReader,
  ) {}

  /** `{"topic": …, "id": …, "offset"?: …}`: answered once the cancellation is durable. */
  @Post('cancel')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async cancel(@Req() request: RequestWithRawBody, @Caller() caller: Principal): Promise<{ cancelled: CancelledMessage }> {
    const wanted = cancelRequest(await this.body.read(request));
    caller.assertMayPublish([wanted.topic]);
    return { cancelled: await this.canceller.cancel(wanted) };
  }
}
