import {
  acceptsSettlementStream,
  BATCH_MESSAGES_PATH,
  CONSUMER_ID_HEADER,
  MESSAGES_PATH,
  SHARED_MESSAGES_PATH,
  SHARED_PUSH_HEADER,
  writeJson,
} from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ListenerRegistry } from '../listener/listener-registry';
import { PushReceiver } from './push-receiver';
import { SettlementStreamWriter } from './settlement-stream.writer';
import { SharedSettlementWriter } from './shared-settlement.writer';

/**
 * The broker's pushes at the level of Node's HTTP server — `POST /mmmq/messages` (one message) and
 * `/mmmq/messages/batch`, with the listener's consumer id in `mmmq-consumer-id` — on whatever server they arrive:
 * the application's (PushRoute), or a microservice's own (`@mmmq/microservices`). The body is read here with the
 * consumer's `maxBodyBytes`, whatever the application's body parsers; PushReceiver decides the answer.
 */
@Injectable()
export class PushRequestHandler {
  constructor(
    private readonly receiver: PushReceiver,
    private readonly registry: ListenerRegistry,
  ) {}

  /** True for a push: `POST /mmmq/messages`, `/mmmq/messages/batch` or `/mmmq/messages/shared`. */
  isPush(request: IncomingMessage): boolean {
    const path = request.url?.split('?', 1)[0];
    return request.method === 'POST' && (path === MESSAGES_PATH || path === BATCH_MESSAGES_PATH || path === SHARED_MESSAGES_PATH);
  }

  /**
   * True when the push is for one of these listeners (its `mmmq-consumer-id` header names one); a shared push, when
   * some of them take pushes (it refuses the parts of other consumer ids).
   */
  knows(request: IncomingMessage): boolean {
    if (request.url?.split('?', 1)[0] === SHARED_MESSAGES_PATH) return this.receiver.takesSharedPushes();
    const consumerId = request.headers[CONSUMER_ID_HEADER];
    return typeof consumerId === 'string' && this.registry.find(consumerId) !== undefined;
  }

  /**
   * Handles a push (see {@link isPush}) and answers it: a batch whose sender accepts a streamed reply is settled message
   * by message as its handlers finish (SettlementStreamWriter), a shared push part by part (SharedSettlementWriter),
   * anything else with one JSON answer at the end.
   * @param hangUp asked when the answer is ready: true closes the connection after it (the server is closing)
   */
  receive(request: IncomingMessage, response: ServerResponse, hangUp: () => boolean = () => false): void {
    const path = request.url?.split('?', 1)[0];
    // Tells the broker it may send this host's windows together (docs/delivery.md § Shared pushes).
    response.setHeader(SHARED_PUSH_HEADER, '1');
    if (path === SHARED_MESSAGES_PATH) {
      const streamOf = (sizes: number[]) => new SharedSettlementWriter(response, sizes, hangUp);
      void this.receiver.receiveShared(request, streamOf).then((answer) => {
        if (answer === undefined || response.headersSent) return;
        if (hangUp()) response.shouldKeepAlive = false;
        writeJson(response, answer.status, answer.body, answer.headers);
      });
      return;
    }
    if (path === BATCH_MESSAGES_PATH && acceptsSettlementStream(request.headers.accept)) {
      let stream: SettlementStreamWriter | undefined;
      const streamOf = (size: number) => (stream = new SettlementStreamWriter(response, size, hangUp));
      void this.receiver.receiveBatch(request, streamOf).then((answer) => {
        if (stream) stream.finish(answer);
        else if (!response.headersSent) writeJson(response, answer.status, answer.body, answer.headers);
      });
      return;
    }
    const answered = path === BATCH_MESSAGES_PATH ? this.receiver.receiveBatch(request) : this.receiver.receive(request);
    void answered.then((answer) => {
      // Shutdown answered it already (503, HttpShutdownGate); what failed since is the body it cut short.
      if (response.headersSent) return;
      if (hangUp()) response.shouldKeepAlive = false;
      writeJson(response, answer.status, answer.body, answer.headers);
    });
  }
}
