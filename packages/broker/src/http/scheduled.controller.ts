import { Controller, HttpCode, HttpStatus, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import { PublishIntake } from '../publish/publish-intake';
import { RequestWithRawBody } from './raw-body.reader';
import { CancelledMessage, cancelRequest, cancelScheduled } from '../publish/scheduled-cancellation';
import { ScheduledCancellations } from '../publish/scheduled-cancellations';
import { BrokerAccessGuard } from './broker-access.guard';
import { Caller } from '../security/caller.decorator';
import { Principal } from '../security/principal';
import { RequiresRole } from '../security/requires-role.decorator';
import { TopicQueueContainer } from '../storage/topic-queue-container';
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
    private readonly queues: TopicQueueContainer,
    private readonly intake: PublishIntake,
    private readonly body: JsonBodyReader,
    private readonly cancellations: ScheduledCancellations,
  ) {}

  /** `{"topic": …, "id": …, "offset"?: …}`: answered once the cancellation is durable. */
  @Post('cancel')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async cancel(@Req() request: RequestWithRawBody, @Caller() caller: Principal): Promise<{ cancelled: CancelledMessage }> {
    const wanted = cancelRequest(await this.body.read(request));
    caller.assertMayPublish([wanted.topic]);
    return { cancelled: await cancelScheduled(this.queues.get(wanted.topic.name), this.intake, this.cancellations, wanted) };
  }
}
