import { MmmqValidationError } from '@mmmq/core';
import {
  Controller,
  Get,
  HttpStatus,
  NotFoundException,
  OnApplicationBootstrap,
  OnModuleDestroy,
  Param,
  Query,
  Req,
  Res,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { DispatcherRegistry } from '../dispatch/dispatcher-registry';
import { SubscriptionContainer } from '../dispatch/subscription-container';
import { NackExceptionFilter } from '../http/nack-exception.filter';
import { BrokerAccessGuard } from '../http/broker-access.guard';
import { incomingMessageOf, RequestWithRawBody } from '../http/raw-body.reader';
import { RequiresRole } from '../security/requires-role.decorator';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { PublishStreamServer } from '../stream/publish-stream.server';
import type { StreamConnectionView } from '../stream/publish-stream.connection';
import { ConsoleAccess } from './console-access';
import { CONSOLE_PAGE, ConsoleAsset, ConsoleAssets } from './console-assets';
import { ConsoleHistory, HistoryView } from './console-history';
import { notFoundPage } from './not-found-page';

/**
 * Sent with every console file. The page runs only its own scripts and styles and talks only to this broker
 * (`connect-src 'self'`), so even content that slipped past the escaping could not run or send data anywhere;
 * no other site may frame it (clickjacking), and nothing is cached (a token-protected page's state stays fresh).
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/**
 * The admin web console (docs/operations.md#console): one page and its scripts and styles, which call the admin
 * API from the browser like any other client. Serving them needs no token (a page load cannot send one); the data
 * does. {@link ConsoleAccess} decides where it is served at all. The charts' 15 minutes of samples are the one
 * route of its own ({@link history}), with the admin API's checks; the sampler runs only while the console is on.
 */
@Controller('mmmq/console')
@UseFilters(NackExceptionFilter)
export class ConsoleController implements OnApplicationBootstrap, OnModuleDestroy {
  /** Not read while the console is off: a bundle that left the files out still starts. */
  private readonly assets: ConsoleAssets | undefined;
  private readonly sampler: ConsoleHistory | undefined;

  constructor(
    private readonly access: ConsoleAccess,
    private readonly adapterHost: HttpAdapterHost,
    queues: TopicQueueContainer,
    subscriptions: SubscriptionContainer,
    dispatchers: DispatcherRegistry,
    private readonly stream: PublishStreamServer,
  ) {
    this.assets = access.enabled ? new ConsoleAssets() : undefined;
    this.sampler = access.enabled
      ? new ConsoleHistory({
          topics: () => queues.each(),
          subscriptions: function* () {
            for (const { consumerId } of dispatchers.list()) yield* subscriptions.eachSubscriptionOf(consumerId);
          },
        })
      : undefined;
  }

  onApplicationBootstrap(): void {
    this.sampler?.start();
  }

  onModuleDestroy(): void {
    this.sampler?.stop();
  }

  /** The newest samples of publish and delivery rates and lag: all that are kept, or those after sample `since`. */
  @Get('data/history')
  @UseGuards(BrokerAccessGuard)
  @RequiresRole('admin')
  history(@Query('since') since?: string): HistoryView {
    if (this.sampler === undefined) throw new NotFoundException('The console is turned off on this broker (console.enabled is false).');
    const after = since === undefined ? undefined : Number(since);
    if (after !== undefined && (!Number.isSafeInteger(after) || after < 0)) {
      throw new MmmqValidationError(`since must be a non-negative integer, got ${JSON.stringify(since)}`);
    }
    return this.sampler.history(after);
  }

  /** The publish stream's open connections (`connections` absent while the stream is off). */
  @Get('data/connections')
  @UseGuards(BrokerAccessGuard)
  @RequiresRole('admin')
  connections(): { stream: { enabled: boolean; connections: StreamConnectionView[] } } {
    if (this.sampler === undefined) throw new NotFoundException('The console is turned off on this broker (console.enabled is false).');
    const connections = this.stream.connectionViews();
    return { stream: { enabled: connections !== undefined, connections: connections ?? [] } };
  }

  @Get()
  page(@Req() request: RequestWithRawBody, @Res() response: unknown): void {
    this.send(request, response, this.assets?.get(CONSOLE_PAGE));
  }

  @Get('assets/:name')
  asset(@Req() request: RequestWithRawBody, @Param('name') name: string, @Res() response: unknown): void {
    this.send(request, response, name === CONSOLE_PAGE ? undefined : this.assets?.get(name));
  }

  private send(request: RequestWithRawBody, response: unknown, asset: ConsoleAsset | undefined): void {
    const refusal = this.access.refusal(incomingMessageOf(request));
    const adapter = this.adapterHost.httpAdapter;
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) adapter.setHeader(response, name, value);
    if (refusal !== undefined || asset === undefined) {
      adapter.setHeader(response, 'Content-Type', 'text/html; charset=utf-8');
      adapter.reply(response, notFoundPage(refusal ?? 'No such console file.'), HttpStatus.NOT_FOUND);
      return;
    }
    adapter.setHeader(response, 'Content-Type', asset.contentType);
    adapter.reply(response, asset.body, HttpStatus.OK);
  }
}
