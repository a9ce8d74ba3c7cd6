import { Controller, Get, HttpStatus, Param, Req, Res, UseFilters } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { NackExceptionFilter } from '../http/nack-exception.filter';
import { incomingMessageOf, RequestWithRawBody } from '../http/raw-body.reader';
import { ConsoleAccess } from './console-access';
import { CONSOLE_PAGE, ConsoleAsset, ConsoleAssets } from './console-assets';
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
 * does. {@link ConsoleAccess} decides where it is served at all.
 */
@Controller('mmmq/console')
@UseFilters(NackExceptionFilter)
export class ConsoleController {
  /** Not read while the console is off: a bundle that left the files out still starts. */
  private readonly assets: ConsoleAssets | undefined;

  constructor(
    private readonly access: ConsoleAccess,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.assets = access.enabled ? new ConsoleAssets() : undefined;
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
