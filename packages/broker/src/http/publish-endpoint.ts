import { Acknowledgement, PublishBatchResponse, PublishResponse } from '@mmmq/core';
import type { PublishIntake } from '../publish/publish-intake';
import type { PublishRequestParser } from '../publish/publish-request.parser';
import type { Principal } from '../security/principal';

/**
 * What `POST /mmmq/messages` and `/batch` do with a request body once its sender is admitted: parse it, check the
 * caller may publish to its topics (403), and answer once the intake acknowledges. One implementation for the Nest
 * routes (`MessagesController`) and the routes served at the level of Node's server (`PublishRoutes`).
 */
export class PublishEndpoint {
  constructor(
    private readonly parser: PublishRequestParser,
    private readonly intake: PublishIntake,
  ) {}

  async publish(body: Buffer, caller: Principal): Promise<PublishResponse> {
    const message = this.parser.parseSingle(body);
    caller.assertMayPublish([message.topic]);
    const published = await this.intake.publish(message);
    return { acknowledgement: Acknowledgement.ACK, ...published };
  }

  async publishBatch(body: Buffer, caller: Principal): Promise<PublishBatchResponse> {
    const messages = this.parser.parseBatch(body);
    caller.assertMayPublish(messages.map((message) => message.topic));
    return { acknowledgement: Acknowledgement.ACK, messages: await this.intake.publishBatch(messages) };
  }
}
