import { Acknowledgement, type Reply } from '@mmmq/core';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import { NonRetriableError } from '../errors/non-retriable.error';
import { ListenerInbox } from '../inbox/listener-inbox';
import type { ListenerDefinition } from '../listener/listener-definition';
import { MessageContext } from '../listener/message-context';
import { ClaimCheckResolver } from './claim-check-resolver';
import { convertContent } from './content-converter';
import { CONSUMER_OBSERVER, ConsumerObserver, outcomeOf } from './consumer-observer';
import type { ConsumerDelivery } from '../listener/consumer-delivery';
import { verdictOf } from './listener-verdict';
import { traceProcess } from './process-tracing';
import { ConsumerReply, replyFor, Settlement, SettlementChannel } from '../listener/settlement';
import { errorReply, replyAddress, resultReply } from '../reply/listener-reply';
import { ReplySender } from '../reply/reply-sender';

const ACK: ConsumerReply = { acknowledgement: Acknowledgement.ACK };

/** How one handler run ended. */
export interface InvocationOutcome {
  reply: ConsumerReply;
  /** True when the handler's `ack()` / `nack()` / `terminate()` already reached the broker (pull `manual`). */
  sent: boolean;
}

/** Where a request's reply goes while a batch runs on: handed over sending, or `carry`: in the acknowledgement. */
interface DeferredReply {
  carry: boolean;
  defer(sending: Promise<InvocationOutcome>): void;
}

/** A handler run's outcome, and the answer to send first when the delivery is a request. */
type Answered = InvocationOutcome & { answer?: Reply | Promise<Reply> };

/**
 * Runs one listener on one delivery (through its Nest pipes, guards, interceptors and filters) and turns the
 * outcome into the acknowledgement: ACK once the handler succeeded; NACK (the broker retries) when it threw;
 * NACK with `retry: false` (the broker dead-letters at once) when the content is invalid, or on a verdict that
 * retrying cannot change: a `NonRetriableError` thrown or returned, a pipe's or guard's `HttpException` (400, 401, 403, 422), an
 * `RpcException` (see `verdictOf`). In `manual` mode the handler's own `ack()` / `nack()` / `terminate()`
 * decides, and returning without one is a NACK. It never throws.
 */
@Injectable()
export class ListenerInvoker {
  private readonly logger = new Logger('MmmqConsumer');

  constructor(
    @Optional() @Inject(CONSUMER_OBSERVER) private readonly observer?: ConsumerObserver,
    @Optional() private readonly claimChecks: ClaimCheckResolver = new ClaimCheckResolver(undefined),
    @Optional() private readonly inbox?: ListenerInbox,
    @Optional() private readonly replies: ReplySender = new ReplySender({ kind: 'none', reason: 'no reply route is configured' }),
  ) {}

  async invoke(listener: ListenerDefinition, delivery: ConsumerDelivery, channel?: SettlementChannel): Promise<ConsumerReply> {
    return (await this.run(listener, delivery, channel)).reply;
  }

  /** @param channel how a `manual` decision and `inProgress()` reach the broker while the handler runs */
  run(listener: ListenerDefinition, delivery: ConsumerDelivery, channel?: SettlementChannel): Promise<InvocationOutcome> {
    return traceProcess(listener, delivery, () => this.observed(listener, delivery, channel));
  }

  /**
   * As {@link invoke}, but resolves as soon as the handler ran: a request's reply is sent meanwhile, and `reply`
   * resolves once it is (a NACK when it could not be). A batch then runs its next handler while the last reply is on
   * its way to the broker, instead of one broker round trip per request; each acknowledgement still follows its reply.
   */
  async invokeReplyingLater(
    listener: ListenerDefinition,
    delivery: ConsumerDelivery,
    channel?: SettlementChannel,
    /** The acknowledgement may carry the reply (`reply`), which its sender relays: no reply request of its own. */
    carryReply = false,
  ): Promise<{ reply: Promise<ConsumerReply> }> {
    let replied: Promise<InvocationOutcome> | undefined;
    const outcome = await traceProcess(listener, delivery, () =>
      this.observed(listener, delivery, channel, {
        carry: carryReply,
        defer: (sending) => {
          replied = sending;
        },
      }),
    );
    return { reply: replied === undefined ? Promise.resolve(outcome.reply) : replied.then(({ reply }) => reply) };
  }

  /** @param deferReply given: a request's reply is handed to `defer`, sending, instead of awaited */
  private async observed(
    listener: ListenerDefinition,
    delivery: ConsumerDelivery,
    channel?: SettlementChannel,
    deferReply?: DeferredReply,
  ): Promise<InvocationOutcome> {
    if (this.observer === undefined) return this.settle(listener, delivery, channel, deferReply);
    const started = performance.now();
    const outcome = await this.settle(listener, delivery, channel, deferReply);
    this.observer.handled(listener.consumerId, delivery.topic, outcomeOf(outcome.reply), (performance.now() - started) / 1000);
    return outcome;
  }

  /**
   * A request (its delivery carries reply headers) is answered once its handler ran: with the result on success, with
   * the error when it failed or its content was refused. A handler's failure is then the requester's to see, so the
   * request is settled (ACK), not retried; a verdict (invalid content, `NonRetriableError`) still dead-letters it.
   */
  private async settle(
    listener: ListenerDefinition,
    received: ConsumerDelivery,
    channel?: SettlementChannel,
    deferReply?: DeferredReply,
  ): Promise<InvocationOutcome> {
    const answered = await this.handle(listener, received, channel);
    if (answered.answer === undefined) return answered;
    const { answer, ...outcome } = answered;
    if (deferReply === undefined) return this.replying(listener, received, answer, outcome);
    deferReply.defer(
      deferReply.carry && !outcome.sent ? this.carrying(answer, outcome) : this.replying(listener, received, answer, outcome),
    );
    return outcome;
  }

  /**
   * The reply goes with the acknowledgement, which its sender relays (one line of the push's answer instead of a reply
   * request); a requester of this process still gets it directly.
   */
  private async carrying(answer: Reply | Promise<Reply>, outcome: InvocationOutcome): Promise<InvocationOutcome> {
    const reply = await answer;
    if (this.replies.deliverInProcess(reply)) return outcome;
    return { ...outcome, reply: { ...outcome.reply, reply } };
  }

  /** Sends a request's reply before its acknowledgement: a reply that could not be sent NACKs it, to be answered again. */
  private async replying(
    listener: ListenerDefinition,
    delivery: ConsumerDelivery,
    answer: Reply | Promise<Reply>,
    outcome: InvocationOutcome,
  ): Promise<InvocationOutcome> {
    try {
      await this.replies.send(await answer);
      return outcome;
    } catch (error) {
      const message = `its reply could not be sent: ${error instanceof Error ? error.message : String(error)}`;
      const settled = outcome.sent || listener.ackMode === 'none';
      this.logger.warn(
        `${listener.where} handled request ${delivery.id} from ${delivery.topic}, but ${message}; ` +
          `${settled ? 'it was settled already' : retryNote(listener, delivery)}`,
      );
      return settled ? outcome : { reply: { acknowledgement: Acknowledgement.NACK, message }, sent: false };
    }
  }

  private async handle(listener: ListenerDefinition, received: ConsumerDelivery, channel?: SettlementChannel): Promise<Answered> {
    let claimCheck;
    try {
      // Awaited only when it is a promise (a claim check, a class to validate): an await costs a turn per message.
      const resolving = this.claimChecks.resolve(received);
      claimCheck = resolving instanceof Promise ? await resolving : resolving;
    } catch (error) {
      return this.unreadable(listener, received, error);
    }
    if (!claimCheck.valid) return this.reject(listener, received, `Message rejected: ${claimCheck.reason}`);
    const { delivery } = claimCheck;
    const converting = convertContent(listener.contentType, delivery.content);
    const conversion = converting instanceof Promise ? await converting : converting;
    if (!conversion.valid) return this.reject(listener, delivery, `Message rejected: ${conversion.reason}`);
    // A broker transaction inside the inbox's database transaction would settle the message before the database
    // commits: a failed COMMIT would then lose the effect. The outbox is the way to publish from an inbox listener.
    const settlement = new Settlement(listener.where, listener.ackMode, listener.inbox === true ? withoutCommit(channel) : channel);
    let result: unknown;
    try {
      if (listener.inbox === true) {
        const outcome = await this.throughInbox(listener, delivery, conversion.value, settlement);
        if (outcome.status === 'duplicate') {
          settlement.close();
          return this.duplicate(listener, delivery);
        }
        result = outcome.result;
      } else {
        result = await listener.handle(conversion.value, new MessageContext(listener.consumerId, delivery, settlement));
      }
    } catch (error) {
      settlement.close();
      return this.failed(listener, delivery, settlement, error);
    }
    settlement.close();
    const address = replyAddress(delivery);
    if (settlement.decision !== undefined) {
      const answer = address !== undefined && settlement.decision.kind === 'ack' ? resultReply(address, result) : undefined;
      return { reply: replyFor(settlement.decision), sent: settlement.sent, answer };
    }
    if (listener.ackMode === 'manual') return this.unsettled(listener, delivery);
    if (result instanceof NonRetriableError) return this.reject(listener, delivery, result.message);
    return { reply: ACK, sent: false, answer: address === undefined ? undefined : resultReply(address, result) };
  }

  /** Runs the handler in the inbox's transaction, after the reservation of (message id, consumer id). */
  private throughInbox(listener: ListenerDefinition, delivery: ConsumerDelivery, content: unknown, settlement: Settlement) {
    // Checked at bootstrap (checkListenerInbox); a definition built elsewhere must not run without its inbox.
    if (this.inbox === undefined) throw new InvalidListenerError(`${listener.where} has inbox: true, but no ListenerInbox is provided`);
    return this.inbox.process({ messageId: delivery.id, consumerId: listener.consumerId }, async (transaction) => {
      const result = await listener.handle(content, new MessageContext(listener.consumerId, delivery, settlement, { transaction }));
      // A refusal must not commit what the handler wrote: rolled back, then dead-lettered as if thrown.
      if (result instanceof NonRetriableError) throw result;
      return result;
    });
  }

  private duplicate(listener: ListenerDefinition, delivery: ConsumerDelivery): InvocationOutcome {
    this.logger.debug(
      `${listener.where} had processed message ${delivery.id} from ${delivery.topic} already (inbox); acknowledged ` +
        `without running the handler (attempt ${delivery.deliveryCount})`,
    );
    this.observer?.inboxDuplicate(listener.consumerId, delivery.topic);
    return { reply: ACK, sent: false };
  }

  private failed(listener: ListenerDefinition, delivery: ConsumerDelivery, settlement: Settlement, error: unknown): Answered {
    const message = error instanceof Error ? error.message : String(error);
    if (settlement.decision !== undefined) {
      this.logger.warn(
        `${listener.where} threw after it settled message ${delivery.id} from ${delivery.topic} with ` +
          `${settlement.decision.kind}; the settlement stands: ${message}`,
      );
      return { reply: replyFor(settlement.decision), sent: settlement.sent };
    }
    const verdict = verdictOf(error);
    if (verdict !== undefined) return this.reject(listener, delivery, verdict, error);
    const address = replyAddress(delivery);
    if (address !== undefined) {
      this.logger.debug(`${listener.where} failed on request ${delivery.id} from ${delivery.topic}; it answers with the error: ${message}`);
      return { reply: ACK, sent: false, answer: errorReply(address, error) };
    }
    this.logger.warn(
      `${listener.where} failed on message ${delivery.id} from ${delivery.topic} (attempt ${delivery.deliveryCount}); ` +
        `${retryNote(listener, delivery)}: ${message}`,
    );
    return { reply: { acknowledgement: Acknowledgement.NACK, message }, sent: false };
  }

  /** The object store failed (not the content): nothing ran, so the delivery is retried like a failed handler. */
  private unreadable(listener: ListenerDefinition, delivery: ConsumerDelivery, error: unknown): InvocationOutcome {
    const message = `the claim check's content could not be read from the store: ${error instanceof Error ? error.message : String(error)}`;
    this.logger.warn(
      `${listener.where} did not run for message ${delivery.id} from ${delivery.topic} (attempt ${delivery.deliveryCount}); ` +
        `${retryNote(listener, delivery)}: ${message}`,
    );
    return { reply: { acknowledgement: Acknowledgement.NACK, message }, sent: false };
  }

  private unsettled(listener: ListenerDefinition, delivery: ConsumerDelivery): InvocationOutcome {
    const message =
      `${listener.where} returned without settling message ${delivery.id} from ${delivery.topic}: with ackMode ` +
      `'manual' a handler must call context.ack(), nack() or terminate() before it returns; the message is NACKed ` +
      `and ${delivery.lastAttempt === true ? LAST_ATTEMPT : 'the broker will retry it'}`;
    this.logger.error(message);
    return { reply: { acknowledgement: Acknowledgement.NACK, message }, sent: false };
  }

  /** @param error what the handler threw, answered to a request as it is; absent: a refusal, answered by `message` */
  private reject(listener: ListenerDefinition, delivery: ConsumerDelivery, message: string, error?: unknown): Answered {
    const address = replyAddress(delivery);
    const answer = address === undefined ? undefined : errorReply(address, error ?? new NonRetriableError(message));
    this.logger.warn(
      `${listener.where} refused message ${delivery.id} from ${delivery.topic}; ` +
        `${listener.ackMode === 'none' ? retryNote(listener, delivery) : 'the broker dead-letters it'}: ${message}`,
    );
    return { reply: { acknowledgement: Acknowledgement.NACK, retry: false, message }, sent: false, answer };
  }
}

/** The broker marks its last attempt (`lastAttempt`); a failure then is dead-lettered, not retried. */
const LAST_ATTEMPT = 'this was the last attempt, so the broker dead-letters it';

function retryNote(listener: ListenerDefinition, delivery: ConsumerDelivery): string {
  if (listener.ackMode === 'none') return "the message is dropped: with ackMode 'none' the broker settled it on delivery";
  return delivery.lastAttempt === true ? LAST_ATTEMPT : 'the broker will retry it';
}

const INBOX_COMMIT_UNAVAILABLE =
  "the listener has inbox: true, and a broker transaction would settle the message before the inbox's database " +
  'transaction commits; publish from an inbox listener with the outbox (@mmmq/postgres) instead';

function withoutCommit(channel: SettlementChannel | undefined): SettlementChannel {
  return { ...channel, commit: undefined, commitUnavailable: INBOX_COMMIT_UNAVAILABLE };
}
