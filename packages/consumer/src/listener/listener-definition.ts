import type { BacklogLimit, StartFrom, TopicPattern } from '@mmmq/core';
import type { AckMode } from './ack-mode';
import type { DeliveryMode } from './delivery-mode';
import type { ContentType } from './content-type';
import type { MessageContext } from './message-context';

/** A listener ready to receive: named, with its own consumer id (and so its own dispatcher on the broker). */
export interface ListenerDefinition {
  name: string;
  /** `Class.method`, for log lines and error messages. */
  where: string;
  consumerId: string;
  pattern: TopicPattern;
  /** Messages handled at once; 1 keeps the broker's order. */
  concurrency: number;
  /** Only sent to the broker when set. */
  startFrom: StartFrom | undefined;
  /** Only messages matching it are delivered (checked at bootstrap; the broker applies it). Only sent when set. */
  selector?: string;
  /** `maxBacklog` and `backlogOverflow` of its dispatcher. Only sent when set. */
  backlogLimit?: BacklogLimit;
  /** `maxActiveMembers` and `maxMembers` of its dispatcher. Only sent when set. */
  maxActiveMembers?: number;
  maxMembers?: number;
  /** False: its pushes are independent, not numbered (the dispatcher's `ordered: false`). Only sent when false. */
  ordered?: false;
  /** When its messages count as settled. */
  ackMode: AckMode;
  /** True: the handler runs through the `ListenerInbox` (absent: false, for definitions built outside the module). */
  inbox?: boolean;
  /** Push or pull from a broker over HTTP, as declared (decorator or `listeners` entry); absent: the module's `delivery`. */
  delivery?: DeliveryMode;
  contentType: ContentType;
  /** The handler behind its Nest enhancers; called with the converted content. */
  handle(content: unknown, context: MessageContext): unknown;
}
