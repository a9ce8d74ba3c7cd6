import { BATCH_MESSAGES_PATH, MESSAGES_PATH } from '@mmmq/core';
import { Controller, Post, Req, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { RequestWithBody } from './delivery-body.reader';
import { PushAnswer, PushReceiver } from './push-receiver';

/**
 * The push endpoint the broker delivers to, in the application: `POST /mmmq/messages` (one message) and
 * `POST /mmmq/messages/batch` (dispatchers registered with `batchSize` > 1), with the listener's consumer id in the
 * `mmmq-consumer-id` header. PushReceiver decides the answer; this controller writes it through the application's
 * HTTP adapter (express or fastify).
 */
@Controller({ version: VERSION_NEUTRAL })
export class MessagesController {
  constructor(
    private readonly receiver: PushReceiver,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Post(MESSAGES_PATH)
  async receive(@Req() request: RequestWithBody, @Res() response: unknown): Promise<void> {
    this.reply(response, await this.receiver.receive(request));
  }

  @Post(BATCH_MESSAGES_PATH)
  async receiveBatch(@Req() request: RequestWithBody, @Res() response: unknown): Promise<void> {
    this.reply(response, await this.receiver.receiveBatch(request));
  }

  private reply(response: unknown, answer: PushAnswer): void {
    const adapter = this.adapterHost.httpAdapter;
    // Shutdown answered it already (503, DeliveryServerGate); what failed since is the body it cut short.
    if (adapter.isHeadersSent(response)) return;
    for (const [name, value] of Object.entries(answer.headers)) adapter.setHeader(response, name, value);
    adapter.reply(response, answer.body, answer.status);
  }
}
