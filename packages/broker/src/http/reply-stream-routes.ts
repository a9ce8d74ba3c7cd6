import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { acceptsSettlementStream, isReplyAddress, MmmqValidationError, REPLIES_PATH, RequestTap, SETTLEMENT_STREAM_TYPE } from '@mmmq/core';
import { Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MMMQ_HTTP_OPTIONS, ResolvedHttpOptions } from '../config/broker-options';
import { ReplyRelay } from '../replies/reply-relay';
import { Authenticator } from '../security/authenticator';
import { BrokerAccess } from './broker-access';
import { JsonBodyReader } from './json-body.reader';
import { writeNack } from './nack-writer';
import { pathOf } from './node-answer';
import { parseWaitMs } from './replies.controller';

const FETCH_SUFFIX = '/fetch';

/**
 * A streamed reply collection (docs/http-api.md § Reply relay): `POST /mmmq/replies/{inbox}/fetch` with `Accept:
 * application/x-ndjson` answers `200` at once and writes each reply as a JSON line as it reaches the inbox, until
 * `waitMs` has passed, the requester hangs up, or a newer collection of the inbox takes over. A requester then needs
 * no new request per reply (a long poll answers one batch and must be asked again, while replies wait). Served at the
 * level of Node's server (RequestTap), by the rules of `RepliesController`, which answers every other collection.
 */
@Injectable()
export class ReplyStreamRoutes implements OnApplicationBootstrap {
  private readonly logger = new Logger(ReplyStreamRoutes.name);
  private readonly access: BrokerAccess;

  constructor(
    private readonly relay: ReplyRelay,
    private readonly body: JsonBodyReader,
    authenticator: Authenticator,
    @Inject(MMMQ_HTTP_OPTIONS) http: ResolvedHttpOptions,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {
    this.access = new BrokerAccess(authenticator, http);
  }

  onApplicationBootstrap(): void {
    const server: unknown = this.adapterHost?.httpAdapter?.getHttpServer();
    if (!(server instanceof NetServer)) return;
    RequestTap.of(server as Server).add((request, response) => this.take(request, response));
  }

  /** True when the request is a streamed collection, which it then answers. */
  take(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'POST' || !acceptsSettlementStream(request.headers.accept)) return false;
    const path = pathOf(request);
    if (!path.startsWith(`${REPLIES_PATH}/`) || !path.endsWith(FETCH_SUFFIX)) return false;
    const inbox = path.slice(REPLIES_PATH.length + 1, -FETCH_SUFFIX.length);
    if (inbox.includes('/')) return false;
    void this.stream(request, response, inbox);
    return true;
  }

  private async stream(request: IncomingMessage, response: ServerResponse, inbox: string): Promise<void> {
    let waitMs: number;
    try {
      this.access.admit(request, 'publish');
      if (!isReplyAddress(inbox)) throw new MmmqValidationError(`Reply inbox ${JSON.stringify(inbox)} must match [A-Za-z0-9._:-]{1,128}`);
      waitMs = parseWaitMs(await this.body.read(request));
    } catch (error) {
      writeNack(request, response, error, this.logger);
      return;
    }
    const gone = new AbortController();
    response.once('close', () => gone.abort('request closed'));
    response.writeHead(200, { 'Content-Type': `${SETTLEMENT_STREAM_TYPE}; charset=utf-8` });
    // Sent now, not with the first line: the requester knows its collection is on.
    response.flushHeaders();
    const until = performance.now() + waitMs;
    // An empty collection ends the stream: the time is up, the requester left, a newer collection took the inbox over.
    for (;;) {
      const replies = await this.relay.collect(inbox, Math.max(0, Math.ceil(until - performance.now())), gone.signal);
      if (replies.length === 0 || gone.signal.aborted) break;
      let lines = '';
      for (const reply of replies) lines += `${JSON.stringify(reply)}\n`;
      // A requester that reads slowly leaves its replies in the relay, under its bounds, not in this socket's buffer.
      if (!response.write(lines)) await Promise.race([once(response, 'drain'), once(response, 'close')]);
    }
    response.end();
  }
}
