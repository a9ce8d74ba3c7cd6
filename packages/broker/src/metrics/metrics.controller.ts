import { Readable } from 'node:stream';
import { Controller, Get, HttpStatus, Res, StreamableFile, Type, UseFilters, UseGuards } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { NackExceptionFilter } from '../http/nack-exception.filter';
import { BrokerAccessGuard } from '../http/broker-access.guard';
import { RequiresRole } from '../security/requires-role.decorator';
import { BrokerMetrics } from './broker-metrics';

/**
 * `GET {path}`: the broker's metrics in the Prometheus text format. A class per path, since a controller's path is
 * fixed when it is declared. Guarded like the other admin reads (`GET /mmmq/storage`): loopback clients of a broker
 * without tokens, or a bearer token with the `admin` role (Prometheus sends one with `authorization`).
 */
export function metricsController(path: string): Type {
  @Controller(path)
  @UseFilters(NackExceptionFilter)
  @UseGuards(BrokerAccessGuard)
  @RequiresRole('admin')
  class MetricsController {
    constructor(
      private readonly metrics: BrokerMetrics,
      private readonly adapterHost: HttpAdapterHost,
    ) {}

    @Get()
    async scrape(@Res() response: unknown): Promise<void> {
      const { registry } = this.metrics;
      const chunks = await this.metrics.scrapeChunks();
      const adapter = this.adapterHost.httpAdapter;
      adapter.setHeader(response, 'Content-Type', registry.contentType);
      adapter.setHeader(response, 'Cache-Control', 'no-store');
      // Written a chunk at a time: as one string the text would be hashed for an ETag and encoded in one turn.
      const length = chunks.reduce((bytes, chunk) => bytes + chunk.length, 0);
      adapter.reply(response, new StreamableFile(Readable.from(chunks), { length }), HttpStatus.OK);
    }
  }
  return MetricsController;
}
